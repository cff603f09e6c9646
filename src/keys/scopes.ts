// The scopes of contract section 5, kept free of imports so the CLI's help can list them cheaply.
export const SCOPES = [
  'customers:read',
  'customers:write',
  'products:read',
  'products:write',
  'invoices:read',
  'invoices:write',
  'payments:read',
] as const;
export type Scope = (typeof SCOPES)[number];
