// The product resource and the shapes of its routes, as the contract states them (sections 2.2,
// 2.3 and 4) with decisions.md (Lists, Products, Formats).
import { type Static, Type } from 'typebox';
import { PRODUCT_TYPES } from '../db/schema.js';
import { ISO_INSTANT_HINT, listQuerySchema } from '../http/list-query.js';
import { MoneyString, Nullable, PaginationSchema, StringEnum, Timestamp } from '../http/schema-helpers.js';
import { MONEY_LIMIT } from '../money.js';
import { MAX_INT32 } from '../values.js';

export { PRODUCT_TYPES };
export const INVENTORY_KINDS = ['INVENTORY', 'NON_INVENTORY'] as const;
export const PRODUCT_SORTS = ['name', 'price', 'stock', 'created_at', 'updated_at'] as const;

export const ProductSchema = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    product_code: Type.String({ description: 'Gerado pelo serviço, sequência por tipo e por empresa.' }),
    sku: Type.String({ description: 'Código próprio do parceiro ("" quando não tem).' }),
    description: Nullable(Type.String()),
    type: StringEnum(PRODUCT_TYPES),
    unity: Type.String({ description: 'Unidade de medida ("" quando não tem).' }),
    price: Nullable(MoneyString()),
    pos_price: Nullable(MoneyString()),
    vat_included: Type.Boolean(),
    tax_rate: Nullable(Type.Number({ description: 'Percentagem do imposto associado.' })),
    stock: Nullable(Type.Number({ description: 'Só leitura; null para produtos NON_INVENTORY.' })),
    reorder_level: Nullable(Type.Integer()),
    tracks_inventory: Type.Boolean(),
    is_for_sale: Type.Boolean(),
    categories: Type.Array(Type.String()),
    created_at: Timestamp(),
    updated_at: Timestamp(),
  },
  {
    $id: 'Product',
    additionalProperties: false,
    description: 'Um produto ou serviço da empresa da chave.',
    examples: [
      {
        id: 5,
        name: 'Farinha de milho 10 kg',
        product_code: 'BEN-000003',
        sku: 'FM-10',
        description: null,
        type: 'GOODS',
        unity: 'saco',
        price: '520.00',
        pos_price: '540.00',
        vat_included: false,
        tax_rate: null,
        stock: 120,
        reorder_level: 20,
        tracks_inventory: true,
        is_for_sale: true,
        categories: ['Mercearia'],
        created_at: '2026-11-20T10:15:00.000+02:00',
        updated_at: '2026-11-22T09:30:00.000+02:00',
      },
    ],
  },
);

export const ProductListQuery = listQuerySchema(PRODUCT_SORTS, {
  search: Type.Optional(Type.String({ description: 'Texto a procurar no nome, código ou SKU.' })),
  type: Type.Optional(StringEnum(PRODUCT_TYPES)),
  is_for_sale: Type.Optional(StringEnum(['true', 'false'] as const)),
  updated_since: Type.Optional(Type.String({ format: 'iso-date-or-time', description: ISO_INSTANT_HINT })),
});

export const ProductListResponse = Type.Object(
  {
    data: Type.Array(ProductSchema),
    pagination: PaginationSchema,
  },
  { description: 'Uma página de produtos e a sua paginação.' },
);
export const ProductResponse = Type.Object({ data: ProductSchema }, { description: 'O produto.' });

/** numeric(18,2): below 10^16, a bound that is a double exactly (so the document writes it exactly). */
const MONEY_LIMIT_NUMBER = MONEY_LIMIT.toNumber();
/** An amount in a request: the documented bound and places, which the API judges on the body's digits. */
const MONEY_INPUT =
  'Valor com no máximo 2 casas decimais (`x-decimal-places`) e menor que 10^16 (até 9999999999999999.99). O número é lido pelos seus próprios algarismos, nunca como número binário: mais casas é um 422, nunca arredondado.';

const optionalText = (maxLength: number) => Type.Optional(Nullable(Type.String({ maxLength })));
const optionalBoolean = () => Type.Optional(Nullable(Type.Boolean()));

/**
 * POST and PUT body (section 2.3): exactly these 13 fields, JSON types never coerced. On PUT the
 * required fields stay required; an optional field left out keeps its value, an explicit null
 * clears it (a boolean cleared goes back to its default: vat_included false, is_for_sale and
 * is_for_purchase true).
 */
export const ProductBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 255 }),
    type: StringEnum(PRODUCT_TYPES),
    inventory: StringEnum(INVENTORY_KINDS, {
      description: 'INVENTORY movimenta stock; NON_INVENTORY não.',
    }),
    price: Type.Number({
      minimum: 0,
      exclusiveMaximum: MONEY_LIMIT_NUMBER,
      'x-decimal-places': 2,
      description: MONEY_INPUT,
    }),
    description: optionalText(2000),
    sku: optionalText(100),
    unity: optionalText(50),
    pos_price: Type.Optional(
      Nullable(
        Type.Number({
          minimum: 0,
          exclusiveMaximum: MONEY_LIMIT_NUMBER,
          'x-decimal-places': 2,
          description: MONEY_INPUT,
        }),
      ),
    ),
    vat_included: optionalBoolean(),
    reorder_level: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: MAX_INT32 }))),
    is_for_sale: optionalBoolean(),
    is_for_purchase: optionalBoolean(),
    tax_id: Type.Optional(
      Nullable(Type.Integer({ description: 'Imposto da empresa da chave ou imposto global.' })),
    ),
  },
  {
    additionalProperties: false,
    title: 'ProductInput',
    description:
      'Corpo de POST e PUT. No PUT os campos obrigatórios continuam obrigatórios; um campo opcional omitido mantém o valor e `null` apaga-o.',
    examples: [
      {
        name: 'Farinha de milho 10 kg',
        type: 'GOODS',
        inventory: 'INVENTORY',
        price: 520,
        sku: 'FM-10',
        unity: 'saco',
        pos_price: 540,
        reorder_level: 20,
      },
    ],
  },
);

export type ProductBody = Static<typeof ProductBody>;
export type ProductListQuery = Static<typeof ProductListQuery>;
export type ProductResource = Static<typeof ProductSchema>;
