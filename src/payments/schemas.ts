// The payment resource (contract 2.7, read-only) and its list query (section 4).
import { Type } from 'typebox';
import { DATE_HINT, ID_HINT, listQuerySchema } from '../http/list-query.js';
import { DateOnly, MoneyString, Nullable, PaginationSchema, Timestamp } from '../http/schema-helpers.js';
import { MAX_INT32 } from '../values.js';

export const PAYMENT_SORTS = ['payment_date', 'amount', 'created_at', 'updated_at'] as const;

export const InvoiceRefSchema = Type.Object(
  { id: Type.Integer(), invoice_code: Type.String(), payment_notice_code: Type.String() },
  { additionalProperties: false, title: 'InvoiceRef', description: 'A factura que o recibo paga.' },
);

export const PaymentSchema = Type.Object(
  {
    id: Type.Integer(),
    payment_code: Type.String(),
    payment_date: Nullable(DateOnly()),
    amount: Nullable(MoneyString()),
    payment_method: Type.String(),
    payment_method_type: Type.String(),
    reference: Type.String(),
    notes: Nullable(Type.String()),
    invoice: Nullable(InvoiceRefSchema),
    created_at: Timestamp(),
    updated_at: Timestamp(),
  },
  {
    $id: 'Payment',
    additionalProperties: false,
    description: 'Um recibo ligado a uma factura da empresa (só leitura).',
    examples: [
      {
        id: 4,
        payment_code: 'RC 2026/000004',
        payment_date: '2026-11-20',
        amount: '5000.00',
        payment_method: 'mpesa',
        payment_method_type: 'mobile_money',
        reference: 'MP261120.1432.A77',
        notes: null,
        invoice: { id: 2, invoice_code: 'FT 2026/000002', payment_notice_code: '' },
        created_at: '2026-11-20T14:32:00.000+02:00',
        updated_at: '2026-11-20T14:32:00.000+02:00',
      },
    ],
  },
);

export const PaymentListQuery = listQuerySchema(PAYMENT_SORTS, {
  invoice_id: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_INT32, description: ID_HINT })),
  date_from: Type.Optional(Type.String({ format: 'date', description: DATE_HINT })),
  date_to: Type.Optional(Type.String({ format: 'date', description: DATE_HINT })),
});

export const PaymentListResponse = Type.Object(
  {
    data: Type.Array(PaymentSchema),
    pagination: PaginationSchema,
  },
  { description: 'Uma página de recibos e a sua paginação.' },
);
export const PaymentResponse = Type.Object({ data: PaymentSchema }, { description: 'O recibo.' });
