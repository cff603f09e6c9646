// The customer resource and the shapes of its routes, as the contract states them (section 2.1).
import { Type } from 'typebox';
import { ISO_INSTANT_HINT, listQuerySchema } from '../http/list-query.js';
import { Nullable, PaginationSchema, StringEnum, Timestamp } from '../http/schema-helpers.js';

export const CUSTOMER_TYPES = ['individual', 'company'] as const;
export const CUSTOMER_SORTS = ['name', 'created_at', 'updated_at'] as const;

export const CustomerSchema = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    type: StringEnum(CUSTOMER_TYPES),
    email: Nullable(Type.String()),
    phone: Nullable(Type.String()),
    contact_number: Nullable(Type.String()),
    nuit: Nullable(Type.String()),
    address: Nullable(Type.String()),
    created_at: Timestamp(),
    updated_at: Timestamp(),
  },
  { $id: 'Customer', additionalProperties: false },
);

export const CustomerListQuery = listQuerySchema(CUSTOMER_SORTS, {
  search: Type.Optional(Type.String({ description: 'Texto a procurar no nome, e-mail, NUIT ou telefone.' })),
  type: Type.Optional(StringEnum(CUSTOMER_TYPES)),
  updated_since: Type.Optional(Type.String({ format: 'iso-date-or-time', description: ISO_INSTANT_HINT })),
});

export const CustomerListResponse = Type.Object({
  data: Type.Array(CustomerSchema),
  pagination: PaginationSchema,
});
export const CustomerResponse = Type.Object({ data: CustomerSchema });

const optionalText = (maxLength: number) => Type.Optional(Nullable(Type.String({ maxLength })));

const customerFields = {
  type: Type.Optional(StringEnum(CUSTOMER_TYPES)),
  email: Type.Optional(Nullable(Type.String({ format: 'email', maxLength: 255 }))),
  phone: optionalText(50),
  contact_number: optionalText(50),
  nuit: optionalText(20),
  address: optionalText(500),
};

export const CustomerCreateBody = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 255 }), ...customerFields },
  { additionalProperties: false },
);

/** PUT: every field optional; only the fields sent change. */
export const CustomerUpdateBody = Type.Object(
  { name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })), ...customerFields },
  { additionalProperties: false },
);
