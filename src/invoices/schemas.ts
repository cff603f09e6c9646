// The invoice resource (contract 2.4, 2.5), the creation body (2.6) and the list query (section 4).
import { type Static, type TProperties, Type } from 'typebox';
import { INVOICE_STATUSES } from '../db/schema.js';
import { DATE_HINT, ID_HINT, ISO_INSTANT_HINT, listQuerySchema } from '../http/list-query.js';
import {
  DateOnly,
  MoneyString,
  Nullable,
  PaginationSchema,
  StringEnum,
  Timestamp,
} from '../http/schema-helpers.js';
import { MAX_INT32 } from '../values.js';

export const INVOICE_SORTS = ['invoice_date', 'due_date', 'grand_total', 'created_at', 'updated_at'] as const;
export const CURRENCIES = ['MZN', 'USD', 'ZAR'] as const;
export const MAX_INVOICE_LINES = 200;

export const InvoiceItemSchema = Type.Object(
  {
    id: Type.Integer(),
    product_id: Nullable(Type.Integer()),
    name: Type.String(),
    description: Type.String(),
    quantity: Nullable(Type.Number()),
    price: Nullable(MoneyString()),
    discount: Nullable(MoneyString()),
    discount_percentage: Nullable(Type.Number()),
    tax_amount: Nullable(MoneyString()),
    tax_rate: Nullable(Type.Number()),
    tax_included: Nullable(Type.Boolean()),
    total: Nullable(MoneyString()),
  },
  { additionalProperties: false, title: 'InvoiceItem', description: 'Uma linha da factura.' },
);

export const CustomerRefSchema = Type.Object(
  { id: Type.Integer(), name: Type.String() },
  { additionalProperties: false, title: 'CustomerRef', description: 'O cliente da factura.' },
);

const invoiceFields = {
  id: Type.Integer(),
  invoice_code: Type.String(),
  payment_notice_code: Type.String(),
  document_type: Type.String(),
  is_payment_notice: Type.Boolean(),
  notice_kind: Type.String(),
  is_pos_sale: Type.Boolean(),
  reference: Type.String(),
  payment_reference: Type.String(),
  status: StringEnum(INVOICE_STATUSES),
  invoice_date: DateOnly(),
  due_date: DateOnly(),
  currency: Type.String(),
  exchange_rate: Nullable(Type.Number()),
  subtotal: Nullable(MoneyString()),
  discount: Nullable(MoneyString()),
  global_discount_amount: Nullable(MoneyString()),
  vat_base: Nullable(MoneyString()),
  tax: Nullable(MoneyString()),
  grand_total: Nullable(MoneyString()),
  paid_amount: Nullable(MoneyString()),
  remaining_amount: Nullable(MoneyString()),
  notes: Type.String(),
  customer: Nullable(CustomerRefSchema),
} satisfies TProperties;

const timestamps = { created_at: Timestamp(), updated_at: Timestamp() };

/** An invoice as lists show it: no items. */
export const InvoiceSummarySchema = Type.Object(
  { ...invoiceFields, ...timestamps },
  {
    $id: 'InvoiceSummary',
    additionalProperties: false,
    description: 'Uma factura como aparece nas listas: sem `items`.',
  },
);

const DRAFT_EXAMPLE = {
  id: 12,
  invoice_code: 'DRAFT-7K2M9QXA',
  payment_notice_code: '',
  document_type: 'invoice',
  is_payment_notice: false,
  notice_kind: '',
  is_pos_sale: false,
  reference: 'Encomenda 2026/341',
  payment_reference: '',
  status: 'draft',
  invoice_date: '2026-11-22',
  due_date: '2026-12-22',
  currency: 'MZN',
  exchange_rate: null,
  subtotal: '4410.00',
  discount: '25.00',
  global_discount_amount: '0.00',
  vat_base: '225.00',
  tax: '36.00',
  grand_total: '4421.00',
  paid_amount: '0.00',
  remaining_amount: '4421.00',
  notes: '',
  customer: { id: 6, name: 'Escola Primária Esperança da Matola' },
  items: [
    {
      id: 31,
      product_id: 5,
      name: 'Farinha de milho 10 kg',
      description: '',
      quantity: 8,
      price: '520.00',
      discount: '0.00',
      discount_percentage: 0,
      tax_amount: '0.00',
      tax_rate: null,
      tax_included: false,
      total: '4160.00',
    },
    {
      id: 32,
      product_id: 6,
      name: 'Entrega ao domicílio (Grande Maputo)',
      description: '',
      quantity: 1,
      price: '250.00',
      discount: '25.00',
      discount_percentage: 10,
      tax_amount: '36.00',
      tax_rate: 16,
      tax_included: false,
      total: '261.00',
    },
  ],
  created_at: '2026-11-22T09:30:00.000+02:00',
  updated_at: '2026-11-22T09:30:00.000+02:00',
};

/** An invoice as a single read and creation show it: with its items. */
export const InvoiceSchema = Type.Object(
  { ...invoiceFields, items: Type.Array(InvoiceItemSchema), ...timestamps },
  {
    $id: 'Invoice',
    additionalProperties: false,
    description: 'Uma factura com as suas linhas (leitura individual e criação).',
    examples: [DRAFT_EXAMPLE],
  },
);

export const InvoiceListQuery = listQuerySchema(INVOICE_SORTS, {
  status: Type.Optional(StringEnum(INVOICE_STATUSES)),
  customer_id: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_INT32, description: ID_HINT })),
  date_from: Type.Optional(Type.String({ format: 'date', description: DATE_HINT })),
  date_to: Type.Optional(Type.String({ format: 'date', description: DATE_HINT })),
  updated_since: Type.Optional(Type.String({ format: 'iso-date-or-time', description: ISO_INSTANT_HINT })),
});

export const InvoiceListResponse = Type.Object(
  {
    data: Type.Array(InvoiceSummarySchema),
    pagination: PaginationSchema,
  },
  { description: 'Uma página de facturas e a sua paginação.' },
);
export const InvoiceResponse = Type.Object(
  { data: InvoiceSchema },
  { description: 'A factura, com as suas linhas.' },
);

const optionalText = (maxLength: number) => Type.Optional(Nullable(Type.String({ maxLength })));

export const InvoiceLineBody = Type.Object(
  {
    // Required (every line carries a product), never null. A line without one, or with null,
    // gets the route's own message with its index (service.ts) rather than the schema's generic
    // one (src/http/input-checks.ts); an id that names no product of the company (0, negative,
    // huge, another company's) gets another message, the same for all of them.
    product_id: Type.Integer({
      description:
        'Obrigatório: um produto desta empresa (um serviço também é um produto, por exemplo NON_INVENTORY). Um id inexistente ou de outra empresa responde 422 com o índice da linha.',
    }),
    name: optionalText(255),
    description: optionalText(2000),
    quantity: Type.Number({
      minimum: 0.0001,
      maximum: 1e12,
      'x-decimal-places': 4,
      description: 'No máximo 4 casas decimais (`x-decimal-places`), lidas pelos algarismos enviados.',
    }),
    price: Type.Number({
      minimum: 0,
      maximum: 1e14,
      'x-decimal-places': 2,
      description:
        'Obrigatório: o preço nunca vem do produto. No máximo 2 casas decimais (`x-decimal-places`), lidas pelos algarismos enviados: mais casas é um 422, nunca arredondado.',
    }),
    /** A percentage from 0 to 100, not an amount. */
    discount: Type.Optional(
      Nullable(
        Type.Number({
          minimum: 0,
          maximum: 100,
          'x-decimal-places': 4,
          description:
            'Percentagem de 0 a 100, não um valor; no máximo 4 casas decimais (`x-decimal-places`).',
        }),
      ),
    ),
    tax_id: Type.Optional(
      Nullable(
        Type.Integer({
          description:
            'O imposto da linha. Omitido: o imposto do próprio produto (o que dá o seu `tax_rate`), ou nenhum se o produto não tem. `null` enviado explicitamente: sem imposto. Um id: esse imposto (desta empresa ou global).',
        }),
      ),
    ),
  },
  {
    additionalProperties: false,
    title: 'InvoiceLineInput',
    description:
      'Uma linha: `product_id`, `quantity` e `price` são obrigatórios (o preço nunca vem do produto); `discount` é uma percentagem; sem `tax_id` a linha leva o imposto do produto, com `"tax_id": null` nenhum. O subtotal (quantidade x preço) e o total de cada linha devem ser menores que 10^16 (senão 422 em `items.N`), e o total da factura também (senão 422 em `items`).',
  },
);

export const InvoiceCreateBody = Type.Object(
  {
    /** Any integer: one that names no customer visible to the company is a 404 (service.ts). */
    customer_id: Type.Integer(),
    invoice_date: DateOnly(),
    items: Type.Array(InvoiceLineBody, { minItems: 1, maxItems: MAX_INVOICE_LINES }),
    due_date: Type.Optional(Nullable(DateOnly())),
    reference: optionalText(255),
    notes: optionalText(2000),
    currency: Type.Optional(Nullable(StringEnum(CURRENCIES))),
    exchange_rate: Type.Optional(
      Nullable(
        Type.Number({
          exclusiveMinimum: 0,
          maximum: 1e9,
          'x-decimal-places': 6,
          description: 'No máximo 6 casas decimais (`x-decimal-places`), lidas pelos algarismos enviados.',
        }),
      ),
    ),
  },
  {
    additionalProperties: false,
    title: 'InvoiceCreate',
    description:
      'Cria sempre um rascunho. `currency` por omissão MZN; `due_date` por omissão a data da factura. No exemplo, a primeira linha vai sem imposto (`"tax_id": null`) e a segunda leva o do produto (IVA 16%), por omitir `tax_id`.',
    examples: [
      {
        customer_id: 6,
        invoice_date: '2026-11-22',
        due_date: '2026-12-22',
        reference: 'Encomenda 2026/341',
        items: [
          { product_id: 5, quantity: 8, price: 520, tax_id: null },
          { product_id: 6, quantity: 1, price: 250, discount: 10 },
        ],
      },
    ],
  },
);
export type InvoiceCreateBody = Static<typeof InvoiceCreateBody>;
export type InvoiceLineBody = Static<typeof InvoiceLineBody>;
