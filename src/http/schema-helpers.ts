// Small TypeBox helpers so schemas read like the contract: nullable fields and string enums
// as plain JSON Schema (`nullable`, `enum`) that Ajv, fast-json-stringify and OpenAPI 3 all read.
import { type Static, type TSchema, Type } from 'typebox';

export function Nullable<T extends TSchema>(schema: T) {
  const plain = { ...schema } as Record<string, unknown>;
  if (Array.isArray(plain.enum)) plain.enum = [...plain.enum, null];
  return Type.Unsafe<Static<T> | null>({ ...plain, nullable: true });
}

export function StringEnum<const T extends readonly string[]>(
  values: T,
  options: Record<string, unknown> = {},
) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

/** A decimal amount serialized as text with two places, e.g. "1250.00". */
export const MoneyString = (options: Record<string, unknown> = {}) =>
  Type.String({ pattern: '^-?[0-9]+\\.[0-9]{2}$', examples: ['1250.00'], ...options });

export const Timestamp = () =>
  Type.String({ format: 'date-time', examples: ['2026-11-22T09:30:00.000+02:00'] });

export const DateOnly = () => Type.String({ format: 'date', examples: ['2026-11-22'] });

export const PaginationSchema = Type.Object(
  {
    total: Type.Integer(),
    count: Type.Integer(),
    per_page: Type.Integer(),
    current_page: Type.Integer(),
    last_page: Type.Integer(),
  },
  { $id: 'Pagination' },
);
