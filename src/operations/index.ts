// The one dispatch table of operator operations, shared by the command line (which runs them on
// its own database connection) and the server's admin socket (which runs them on the server's
// handle). Each entry checks its raw arguments (strings from the command line, or the same JSON
// sent over the socket) and calls the operation function; results are plain JSON objects.
import type { WebhookConfig } from '../config.js';
import type { Database, DatabaseHandle } from '../db/client.js';
import { isCalendarDate, MAX_INT32 } from '../values.js';
import { createApiKey, type KeyMode, listApiKeys, revokeApiKey } from './api-keys.js';
import { createCompany, listCompanies, requireCompany, setPartnerApi } from './companies.js';
import { OperationError } from './errors.js';
import { createGlobalCustomer } from './global-customers.js';
import { cancelInvoice, issueInvoice, MOVEMENT_KINDS, recordMovement, recordReceipt } from './invoices.js';
import { listPendingPosSync } from './pos.js';
import { createTax } from './taxes.js';
import { webhookOperations } from './webhooks.js';

export interface OperationContext {
  db: Database;
  handle: DatabaseHandle;
  /** The service's time zone (config TZ_NAME), for "today". */
  timeZone: string;
  /** WEBHOOK_* settings (URL policy); read from the environment when absent. */
  webhooks?: WebhookConfig;
}

type RawArgs = Record<string, unknown>;

interface OperationDefinition<A, R> {
  parse(raw: RawArgs): A;
  run(context: OperationContext, args: A): Promise<R>;
}

function define<A, R>(definition: OperationDefinition<A, R>): OperationDefinition<A, R> {
  return definition;
}

// ---- argument checks: accept the command line's strings and the socket's JSON alike ----

export function idArg(raw: RawArgs, key: string, label = key): number {
  const value = raw[key];
  const text = typeof value === 'number' ? String(value) : value;
  if (typeof text !== 'string' || !/^[1-9][0-9]{0,9}$/.test(text.trim()) || Number(text) > MAX_INT32) {
    throw new OperationError(
      value === undefined || value === '' ? `${label} is required` : `${label} must be a positive integer id`,
    );
  }
  return Number(text);
}

function optionalId(raw: RawArgs, key: string, label = key): number | undefined {
  return raw[key] === undefined ? undefined : idArg(raw, key, label);
}

function textArg(raw: RawArgs, key: string, label = key): string {
  const value = raw[key];
  if (typeof value !== 'string' || value.trim() === '') throw new OperationError(`${label} is required`);
  return value.trim();
}

function optionalText(raw: RawArgs, key: string, label = key): string | undefined {
  const value = raw[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new OperationError(`${label} must be text`);
  return value.trim() === '' ? undefined : value.trim();
}

function flag(raw: RawArgs, key: string): boolean {
  const value = raw[key];
  if (value === undefined || value === false) return false;
  if (value === true) return true;
  throw new OperationError(`${key} is a flag without a value`);
}

function choice<T extends string>(raw: RawArgs, key: string, values: readonly T[]): T | undefined {
  const value = raw[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !(values as readonly string[]).includes(value)) {
    throw new OperationError(`${key} must be one of ${values.join(', ')}`);
  }
  return value as T;
}

/** An amount as text ("1250.00"); the operation checks it is a positive amount of money. */
function amountText(raw: RawArgs, key: string): string {
  const value = raw[key];
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value !== 'string' || value.trim() === '') throw new OperationError(`${key} is required`);
  return value.trim();
}

function optionalDate(raw: RawArgs, key: string): string | undefined {
  const value = raw[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !isCalendarDate(value)) {
    throw new OperationError(`${key} must be a date YYYY-MM-DD`);
  }
  return value;
}

function scopesArg(raw: RawArgs): string[] | undefined {
  const value = raw.scopes;
  if (value === undefined) return undefined;
  const list = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : null;
  if (!list || list.some((scope) => typeof scope !== 'string')) {
    throw new OperationError('scopes must be a comma-separated list, or all');
  }
  return (list as string[]).map((scope) => scope.trim()).filter((scope) => scope !== '');
}

function daysArg(raw: RawArgs): number | undefined {
  const value = raw.days;
  if (value === undefined) return undefined;
  const text = typeof value === 'number' ? String(value) : value;
  if (typeof text !== 'string' || !/^[0-9]{1,4}$/.test(text.trim())) {
    throw new OperationError('days must be an integer from 1 to 365');
  }
  return Number(text);
}

// ---- the table ----

export const operations = {
  migrate: define({
    parse: () => ({}),
    run: async ({ handle }) => {
      const { runMigrations } = await import('../db/migrate.js');
      await runMigrations(handle);
      return { migrated: true, storage: handle.description };
    },
  }),

  'companies.create': define({
    parse: (raw) => ({ name: textArg(raw, 'name'), nuit: optionalText(raw, 'nuit') }),
    run: ({ db }, args) => createCompany(db, args),
  }),
  'companies.list': define({
    parse: () => ({}),
    run: async ({ db }) => ({ companies: await listCompanies(db) }),
  }),
  'companies.enable-api': define({
    parse: (raw) => ({ id: idArg(raw, 'id', 'company id') }),
    run: ({ db }, args) => setPartnerApi(db, args.id, true),
  }),
  'companies.disable-api': define({
    parse: (raw) => ({ id: idArg(raw, 'id', 'company id') }),
    run: ({ db }, args) => setPartnerApi(db, args.id, false),
  }),

  'keys.create': define({
    parse: (raw) => ({
      companyId: idArg(raw, 'company', 'company'),
      mode: choice<KeyMode>(raw, 'mode', ['live', 'test']),
      scopes: scopesArg(raw),
      days: daysArg(raw),
    }),
    run: ({ db }, args) => createApiKey(db, args),
  }),
  'keys.list': define({
    parse: (raw) => ({ companyId: idArg(raw, 'company', 'company') }),
    run: async ({ db }, args) => {
      await requireCompany(db, args.companyId);
      return { company_id: args.companyId, keys: await listApiKeys(db, args.companyId) };
    },
  }),
  'keys.revoke': define({
    parse: (raw) => ({ id: idArg(raw, 'id', 'key id') }),
    run: ({ db }, args) => revokeApiKey(db, args.id),
  }),

  'taxes.create': define({
    parse: (raw) => {
      const companyId = optionalId(raw, 'company', 'company');
      const global = flag(raw, 'global');
      if ((companyId === undefined) === !global) {
        throw new OperationError('give exactly one of --company ID or --global');
      }
      const rate = raw.rate;
      if (typeof rate !== 'string' && typeof rate !== 'number') throw new OperationError('rate is required');
      return { companyId: companyId ?? null, name: textArg(raw, 'name'), rate: String(rate).trim() };
    },
    run: ({ db }, args) => createTax(db, args),
  }),

  'customers.create': define({
    parse: (raw) => {
      if (!flag(raw, 'global')) {
        throw new OperationError(
          'only global customers (--global) are created here; company customers are created through the API',
        );
      }
      const email = optionalText(raw, 'email');
      if (email !== undefined && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) {
        throw new OperationError('email is not a valid address');
      }
      return {
        name: textArg(raw, 'name'),
        email,
        nuit: optionalText(raw, 'nuit'),
        phone: optionalText(raw, 'phone'),
        type: choice(raw, 'type', ['individual', 'company'] as const),
      };
    },
    run: async ({ db }, args) => ({ ...(await createGlobalCustomer(db, args)), global: true }),
  }),

  'invoices.issue': define({
    parse: (raw) => ({ id: idArg(raw, 'id', 'invoice id') }),
    run: ({ db, timeZone }, args) => issueInvoice(db, args.id, timeZone),
  }),
  'invoices.cancel': define({
    parse: (raw) => ({ id: idArg(raw, 'id', 'invoice id') }),
    run: ({ db, timeZone }, args) => cancelInvoice(db, args.id, timeZone),
  }),

  'payments.record': define({
    parse: (raw) => ({
      invoiceId: idArg(raw, 'invoice', 'invoice'),
      amount: amountText(raw, 'amount'),
      date: optionalDate(raw, 'date'),
      method: optionalText(raw, 'method'),
    }),
    run: ({ db, timeZone }, args) => recordReceipt(db, { ...args, timeZone }),
  }),
  'movements.record': define({
    parse: (raw) => {
      const kind = choice(raw, 'kind', MOVEMENT_KINDS);
      if (!kind) throw new OperationError(`kind is required: ${MOVEMENT_KINDS.join(' or ')}`);
      return {
        companyId: idArg(raw, 'company', 'company'),
        kind,
        amount: amountText(raw, 'amount'),
        date: optionalDate(raw, 'date'),
      };
    },
    run: ({ db, timeZone }, args) => recordMovement(db, { ...args, timeZone }),
  }),

  'pos.pending': define({
    parse: (raw) => ({ companyId: idArg(raw, 'company', 'company') }),
    run: async ({ db }, args) => {
      await requireCompany(db, args.companyId);
      return { company_id: args.companyId, products: await listPendingPosSync(db, args.companyId) };
    },
  }),

  demo: define({
    parse: () => ({}),
    // Loaded on demand: the demo uses the API's services, which the other commands do not need.
    run: async ({ db, timeZone }) => (await import('./demo.js')).createDemo(db, { timeZone }),
  }),

  ...webhookOperations,
};

export type OperationName = keyof typeof operations;

export function isOperationName(name: string): name is OperationName {
  return Object.hasOwn(operations, name);
}

/** Checks the arguments and runs the named operation; refusals are `OperationError`s. */
export async function executeOperation(
  context: OperationContext,
  name: string,
  rawArgs: unknown,
): Promise<unknown> {
  if (!isOperationName(name)) throw new OperationError(`unknown operation ${name}`);
  if (typeof rawArgs !== 'object' || rawArgs === null || Array.isArray(rawArgs)) {
    throw new OperationError('the arguments must be an object');
  }
  const definition = operations[name] as OperationDefinition<unknown, unknown>;
  return definition.run(context, definition.parse(rawArgs as RawArgs));
}
