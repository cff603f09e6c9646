// The payment resource (contract 2.7, read-only) and its list query (section 4).
import { Type } from 'typebox';
import { DATE_HINT, ID_HINT, listQuerySchema } from '../http/list-query.js';
import { DateOnly, MoneyString, Nullable, PaginationSchema, Timestamp } from '../http/schema-helpers.js';
import { MAX_INT32 } from '../values.js';

export const PAYMENT_SORTS = ['payment_date', 'amount', 'created_at', 'updated_at'] as const;

export const InvoiceRefSchema = Type.Object(
  { id: Type.Integer(), invoice_code: Type.String(), payment_notice_code: Type.String() },
  { additionalProperties: false },
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
  { $id: 'Payment', additionalProperties: false },
);

export const PaymentListQuery = listQuerySchema(PAYMENT_SORTS, {
  invoice_id: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_INT32, description: ID_HINT })),
  date_from: Type.Optional(Type.String({ format: 'date', description: DATE_HINT })),
  date_to: Type.Optional(Type.String({ format: 'date', description: DATE_HINT })),
});

export const PaymentListResponse = Type.Object({
  data: Type.Array(PaymentSchema),
  pagination: PaginationSchema,
});
export const PaymentResponse = Type.Object({ data: PaymentSchema });
