// The customer resource and the shapes of its routes, as the contract states them (section 2.1).
import { Type } from 'typebox';
import { ISO_INSTANT_HINT, listQuerySchema } from '../http/list-query.js';
import { Nullable, PaginationSchema, StringEnum, Timestamp } from '../http/schema-helpers.js';

export const CUSTOMER_TYPES = ['individual', 'company'] as const;
export const CUSTOMER_SORTS = ['name', 'created_at', 'updated_at'] as const;

const TIMESTAMPS_EXAMPLE = {
  created_at: '2026-11-20T10:15:00.000+02:00',
  updated_at: '2026-11-22T09:30:00.000+02:00',
};

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
  {
    $id: 'Customer',
    additionalProperties: false,
    description: 'Um cliente da empresa da chave, ou um cliente global (visível a todas, não editável).',
    examples: [
      {
        id: 7,
        name: 'Transportes Chaimite, Lda',
        type: 'company',
        email: 'financeiro@chaimite.exemplo.co.mz',
        phone: '+258 23 32 1234',
        contact_number: null,
        nuit: '401223344',
        address: 'Rua Major Serpa Pinto 55, Beira',
        ...TIMESTAMPS_EXAMPLE,
      },
    ],
  },
);

export const CustomerListQuery = listQuerySchema(CUSTOMER_SORTS, {
  search: Type.Optional(Type.String({ description: 'Texto a procurar no nome, e-mail, NUIT ou telefone.' })),
  type: Type.Optional(StringEnum(CUSTOMER_TYPES)),
  updated_since: Type.Optional(Type.String({ format: 'iso-date-or-time', description: ISO_INSTANT_HINT })),
});

export const CustomerListResponse = Type.Object(
  {
    data: Type.Array(CustomerSchema),
    pagination: PaginationSchema,
  },
  { description: 'Uma página de clientes e a sua paginação.' },
);
export const CustomerResponse = Type.Object({ data: CustomerSchema }, { description: 'O cliente.' });

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
  {
    additionalProperties: false,
    title: 'CustomerCreate',
    description: '`type` por omissão `individual`; o e-mail é único entre os clientes da empresa.',
    examples: [
      {
        name: 'Celso Matsinhe',
        type: 'individual',
        email: 'celso.matsinhe@exemplo.co.mz',
        phone: '+258 84 123 4567',
        nuit: '123456789',
        address: 'Bairro Polana Caniço A, Maputo',
      },
    ],
  },
);

/** PUT: every field optional; only the fields sent change. */
export const CustomerUpdateBody = Type.Object(
  { name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })), ...customerFields },
  {
    additionalProperties: false,
    title: 'CustomerUpdate',
    description: 'Só os campos enviados mudam; `null` apaga um campo opcional.',
    examples: [{ phone: '+258 82 765 4321', address: 'Av. 24 de Julho 1520, Maputo' }],
  },
);
