// The one dispatch table of operator operations, shared by the command line (which runs them on
// its own database connection) and the server's admin socket (which runs them on the server's
// handle). Each entry checks its raw arguments (strings from the command line, or the same JSON
// sent over the socket) and calls the operation function; results are plain JSON objects.
//
// Every operation changes something unless it says `reads: true`, and each change is audited
// (src/operations/audit.ts): the operation and its audit record run in one transaction. An
// argument of the wrong form is an ArgumentError (a usage error: exit status 2); a refusal of a
// well-formed request is an OperationError (exit status 1).
import type { WebhookConfig } from '../config.js';
import type { Database, DatabaseHandle } from '../db/client.js';
import { INVOICE_STATUSES, type InvoiceStatus } from '../db/schema.js';
import { Decimal, moneyFromText } from '../money.js';
import { idFromText, isCalendarDate } from '../values.js';
import {
  createApiKey,
  type KeyMode,
  listApiKeys,
  MAX_KEY_DAYS,
  parseScopes,
  revokeApiKey,
} from './api-keys.js';
import { type AuditTarget, listAuditEntries, osUser, writeAuditEntry } from './audit.js';
import { createCompany, listCompanies, requireCompany, setPartnerApi } from './companies.js';
import { ArgumentError, OperationError } from './errors.js';
import { createGlobalCustomer } from './global-customers.js';
import {
  cancelInvoice,
  issueInvoice,
  MOVEMENT_KINDS,
  PAYMENT_METHODS,
  recordMovement,
  recordReceipt,
} from './invoices.js';
import { lookUpCustomers, lookUpInvoices } from './lists.js';
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
  /** Only reads: not audited, no transaction. */
  reads?: true;
  /**
   * Makes network calls between its own short transactions (webhooks test): never wrapped in one
   * transaction, which would stay open for the whole call; audited once it has ended.
   */
  ownTransactions?: true;
  /**
   * What a change touched, for its audit record (`result` is absent when it was refused). By
   * default: the object is `result.id` of the command group's kind, the company `args.companyId`
   * or `result.company_id`.
   */
  target?(args: A, result: R | undefined): AuditTarget;
}

function define<A, R>(definition: OperationDefinition<A, R>): OperationDefinition<A, R> {
  return definition;
}

// ---- argument checks: accept the command line's strings and the socket's JSON alike ----

export function idArg(raw: RawArgs, key: string, label = key): number {
  const value = raw[key];
  const text = typeof value === 'number' ? String(value) : value;
  const id = typeof text === 'string' ? idFromText(text.trim()) : null;
  if (id === null) {
    throw new ArgumentError(
      value === undefined || value === '' ? `${label} is required` : `${label} must be a positive integer id`,
    );
  }
  return id;
}

function optionalId(raw: RawArgs, key: string, label = key): number | undefined {
  return raw[key] === undefined ? undefined : idArg(raw, key, label);
}

function textArg(raw: RawArgs, key: string, label = key): string {
  const value = raw[key];
  if (typeof value !== 'string' || value.trim() === '') throw new ArgumentError(`${label} is required`);
  return value.trim();
}

function optionalText(raw: RawArgs, key: string, label = key): string | undefined {
  const value = raw[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new ArgumentError(`${label} must be text`);
  return value.trim() === '' ? undefined : value.trim();
}

function flag(raw: RawArgs, key: string): boolean {
  const value = raw[key];
  if (value === undefined || value === false) return false;
  if (value === true) return true;
  throw new ArgumentError(`${key} is a flag without a value`);
}

function choice<T extends string>(raw: RawArgs, key: string, values: readonly T[]): T | undefined {
  const value = raw[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !(values as readonly string[]).includes(value)) {
    throw new ArgumentError(`${key} must be one of ${values.join(', ')}`);
  }
  return value as T;
}

/** An amount as text ("1250.00"): a positive amount of money with at most 2 decimals. */
function amountText(raw: RawArgs, key: string): string {
  const value = raw[key];
  const text = typeof value === 'number' && Number.isFinite(value) ? String(value) : value;
  if (typeof text !== 'string' || text.trim() === '') throw new ArgumentError(`${key} is required`);
  const amount = moneyFromText(text);
  if (typeof amount !== 'string') throw new ArgumentError(amount.problem);
  return text.trim();
}

function optionalDate(raw: RawArgs, key: string): string | undefined {
  const value = raw[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !isCalendarDate(value)) {
    throw new ArgumentError(`${key} must be a date YYYY-MM-DD`);
  }
  return value;
}

function scopesArg(raw: RawArgs): string[] | undefined {
  const value = raw.scopes;
  if (value === undefined) return undefined;
  const list = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : null;
  if (!list || list.some((scope) => typeof scope !== 'string')) {
    throw new ArgumentError('scopes must be a comma-separated list, or all');
  }
  const scopes = (list as string[]).map((scope) => scope.trim()).filter((scope) => scope !== '');
  try {
    parseScopes(scopes);
  } catch (error) {
    throw new ArgumentError((error as Error).message);
  }
  return scopes;
}

function daysArg(raw: RawArgs): number | undefined {
  const value = raw.days;
  if (value === undefined) return undefined;
  const text = typeof value === 'number' ? String(value) : value;
  if (
    typeof text !== 'string' ||
    !/^[0-9]{1,4}$/.test(text.trim()) ||
    !inRange(Number(text), 1, MAX_KEY_DAYS)
  ) {
    throw new ArgumentError(`days must be an integer from 1 to ${MAX_KEY_DAYS}`);
  }
  return Number(text);
}

function inRange(value: number, min: number, max: number): boolean {
  return value >= min && value <= max;
}

/** How many rows a list shows: 1 to 1000, `fallback` when not given. */
function limitArg(raw: RawArgs, fallback: number): number {
  const value = raw.limit;
  if (value === undefined) return fallback;
  const text = typeof value === 'number' ? String(value) : value;
  if (typeof text !== 'string' || !/^[0-9]{1,4}$/.test(text.trim()) || !inRange(Number(text), 1, 1000)) {
    throw new ArgumentError('limit must be an integer from 1 to 1000');
  }
  return Number(text);
}

/** A percentage from 0 to 100 with at most 4 decimals, as text. */
function rateArg(raw: RawArgs): string {
  const value = raw.rate;
  const text = typeof value === 'number' ? String(value) : value;
  if (typeof text !== 'string' || text.trim() === '') throw new ArgumentError('rate is required');
  const problem = 'rate must be a percentage from 0 to 100 with at most 4 decimal places';
  if (!/^[0-9]+(\.[0-9]+)?$/.test(text.trim())) throw new ArgumentError(`${problem}, got "${text}"`);
  const rate = new Decimal(text.trim());
  if (rate.gt(100) || rate.decimalPlaces() > 4) throw new ArgumentError(`${problem}, got "${text}"`);
  return text.trim();
}

function methodArg(raw: RawArgs): string | undefined {
  const method = optionalText(raw, 'method');
  if (method === undefined) return undefined;
  const normalized = method
    .toLowerCase()
    .replace(/[\s-]+/g, '_')
    .replace(/^m_pesa$/, 'mpesa');
  if (!Object.hasOwn(PAYMENT_METHODS, normalized)) {
    throw new ArgumentError(
      `unknown payment method "${method}"; valid: ${Object.keys(PAYMENT_METHODS).join(', ')}`,
    );
  }
  return method;
}

/** A calendar date YYYY-MM-DD or an ISO 8601 timestamp with its offset. */
function sinceArg(raw: RawArgs): string | undefined {
  const value = raw.since;
  if (value === undefined) return undefined;
  const valid =
    typeof value === 'string' &&
    (isCalendarDate(value) ||
      (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(value) &&
        !Number.isNaN(Date.parse(value))));
  if (!valid)
    throw new ArgumentError('since must be a date YYYY-MM-DD or a timestamp like 2026-11-22T09:30:00+02:00');
  return value;
}

// ---- the table ----

export const operations = {
  migrate: define({
    // Changes the schema, not the data; the audit table itself may not exist before it runs.
    reads: true,
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
    target: (_args, result) => ({ type: 'company', id: result?.id ?? null, company: result?.id ?? null }),
  }),
  'companies.list': define({
    reads: true,
    parse: () => ({}),
    run: async ({ db }) => ({ companies: await listCompanies(db) }),
  }),
  'companies.enable-api': define({
    parse: (raw) => ({ id: idArg(raw, 'id', 'company id') }),
    run: ({ db }, args) => setPartnerApi(db, args.id, true),
    target: (args) => ({ type: 'company', id: args.id, company: args.id }),
  }),
  'companies.disable-api': define({
    parse: (raw) => ({ id: idArg(raw, 'id', 'company id') }),
    run: ({ db }, args) => setPartnerApi(db, args.id, false),
    target: (args) => ({ type: 'company', id: args.id, company: args.id }),
  }),

  'keys.create': define({
    parse: (raw) => ({
      companyId: idArg(raw, 'company', 'company'),
      mode: choice<KeyMode>(raw, 'mode', ['live', 'test']),
      scopes: scopesArg(raw),
      days: daysArg(raw),
    }),
    run: ({ db, timeZone }, args) => createApiKey(db, { ...args, timeZone }),
    target: (args, result) => ({ type: 'api_key', id: result?.id ?? null, company: args.companyId }),
  }),
  'keys.list': define({
    reads: true,
    parse: (raw) => ({ companyId: idArg(raw, 'company', 'company') }),
    run: async ({ db, timeZone }, args) => {
      await requireCompany(db, args.companyId);
      return { company_id: args.companyId, keys: await listApiKeys(db, args.companyId, timeZone) };
    },
  }),
  'keys.revoke': define({
    parse: (raw) => ({ id: idArg(raw, 'id', 'key id') }),
    run: ({ db, timeZone }, args) => revokeApiKey(db, args.id, timeZone),
    target: (args) => ({ type: 'api_key', id: args.id, company: { of: 'api_key', id: args.id } }),
  }),

  'taxes.create': define({
    parse: (raw) => {
      const companyId = optionalId(raw, 'company', 'company');
      const global = flag(raw, 'global');
      if ((companyId === undefined) === !global) {
        throw new ArgumentError('give exactly one of --company ID or --global');
      }
      return { companyId: companyId ?? null, name: textArg(raw, 'name'), rate: rateArg(raw) };
    },
    run: ({ db }, args) => createTax(db, args),
    target: (args, result) => ({ type: 'tax', id: result?.id ?? null, company: args.companyId }),
  }),

  'customers.create': define({
    parse: (raw) => {
      if (!flag(raw, 'global')) {
        throw new ArgumentError(
          'only global customers (--global) are created here; company customers are created through the API',
        );
      }
      const email = optionalText(raw, 'email');
      if (email !== undefined && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) {
        throw new ArgumentError('email is not a valid address');
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
    target: (_args, result) => ({ type: 'customer', id: result?.id ?? null, company: null }),
  }),
  'customers.list': define({
    reads: true,
    parse: (raw) => ({ companyId: idArg(raw, 'company', 'company'), limit: limitArg(raw, 100) }),
    run: async ({ db }, args) => {
      await requireCompany(db, args.companyId);
      return { company_id: args.companyId, customers: await lookUpCustomers(db, args) };
    },
  }),

  'invoices.list': define({
    reads: true,
    parse: (raw) => ({
      companyId: idArg(raw, 'company', 'company'),
      status: choice<InvoiceStatus>(raw, 'status', INVOICE_STATUSES),
      limit: limitArg(raw, 50),
    }),
    run: async ({ db }, args) => {
      await requireCompany(db, args.companyId);
      return { company_id: args.companyId, invoices: await lookUpInvoices(db, args) };
    },
  }),
  'invoices.issue': define({
    parse: (raw) => ({ id: idArg(raw, 'id', 'invoice id') }),
    run: ({ db, timeZone }, args) => issueInvoice(db, args.id, timeZone),
    target: (args) => ({ type: 'invoice', id: args.id, company: { of: 'invoice', id: args.id } }),
  }),
  'invoices.cancel': define({
    parse: (raw) => ({ id: idArg(raw, 'id', 'invoice id') }),
    run: ({ db, timeZone }, args) => cancelInvoice(db, args.id, timeZone),
    target: (args) => ({ type: 'invoice', id: args.id, company: { of: 'invoice', id: args.id } }),
  }),

  'payments.record': define({
    parse: (raw) => ({
      invoiceId: idArg(raw, 'invoice', 'invoice'),
      amount: amountText(raw, 'amount'),
      date: optionalDate(raw, 'date'),
      method: methodArg(raw),
    }),
    run: ({ db, timeZone }, args) => recordReceipt(db, { ...args, timeZone }),
    target: (args, result) => ({
      type: 'payment',
      id: result?.id ?? null,
      company: { of: 'invoice', id: args.invoiceId },
    }),
  }),
  'movements.record': define({
    parse: (raw) => {
      const kind = choice(raw, 'kind', MOVEMENT_KINDS);
      if (!kind) throw new ArgumentError(`kind is required: ${MOVEMENT_KINDS.join(' or ')}`);
      return {
        companyId: idArg(raw, 'company', 'company'),
        kind,
        amount: amountText(raw, 'amount'),
        date: optionalDate(raw, 'date'),
      };
    },
    run: ({ db, timeZone }, args) => recordMovement(db, { ...args, timeZone }),
    target: (args, result) => ({ type: 'payment', id: result?.id ?? null, company: args.companyId }),
  }),

  'pos.pending': define({
    reads: true,
    parse: (raw) => ({ companyId: idArg(raw, 'company', 'company') }),
    run: async ({ db, timeZone }, args) => {
      await requireCompany(db, args.companyId);
      return { company_id: args.companyId, products: await listPendingPosSync(db, args.companyId, timeZone) };
    },
  }),

  demo: define({
    // if_empty (serve): only into a database without companies, decided under a lock.
    parse: (raw) => ({ onlyIntoEmpty: raw.if_empty === true }),
    // Loaded on demand: the demo uses the API's services, which the other commands do not need.
    run: async ({ db, timeZone }, args) =>
      (await import('./demo.js')).createDemo(db, { timeZone, onlyIntoEmpty: args.onlyIntoEmpty }),
    target: (_args, result) => ({ type: 'company', id: result?.id ?? null, company: result?.id ?? null }),
  }),

  'audit.list': define({
    reads: true,
    parse: (raw) => ({
      companyId: optionalId(raw, 'company', 'company'),
      since: sinceArg(raw),
      limit: limitArg(raw, 100),
    }),
    run: async ({ db, timeZone }, args) => ({ entries: await listAuditEntries(db, { ...args, timeZone }) }),
  }),

  ...webhookOperations,
};

export type OperationName = keyof typeof operations;

export function isOperationName(name: string): name is OperationName {
  return Object.hasOwn(operations, name);
}

/** Whether the named operation only reads (is not audited). */
export function isReadOnly(name: string): boolean {
  return isOperationName(name) && (operations[name] as OperationDefinition<unknown, unknown>).reads === true;
}

/** `keys.revoke` -> `keys revoke`: the command as the operator types it. */
function commandOf(name: string): string {
  return name.replace('.', ' ');
}

const GROUP_OBJECTS: Record<string, string> = {
  companies: 'company',
  keys: 'api_key',
  taxes: 'tax',
  customers: 'customer',
  invoices: 'invoice',
  payments: 'payment',
  movements: 'payment',
  webhooks: 'webhook',
};

function defaultTarget(name: string, args: unknown, result: unknown): AuditTarget {
  const group = name.split('.')[0] ?? name;
  const fromArgs = (args as { companyId?: unknown } | undefined)?.companyId;
  const fromResult = result as { id?: unknown; company_id?: unknown } | undefined;
  const id = typeof fromResult?.id === 'number' ? fromResult.id : null;
  const company =
    typeof fromArgs === 'number'
      ? fromArgs
      : typeof fromResult?.company_id === 'number'
        ? fromResult.company_id
        : null;
  return { type: GROUP_OBJECTS[group] ?? group, id, company };
}

function targetOf(
  name: string,
  definition: OperationDefinition<unknown, unknown>,
  args: unknown,
  result: unknown,
): AuditTarget {
  if (args === undefined) return { type: null, id: null, company: null };
  return definition.target ? definition.target(args, result) : defaultTarget(name, args, result);
}

export interface OperationMeta {
  /** Who runs it, for the audit trail: the OS user unless the command line says --actor. */
  actor?: string;
}

/**
 * Checks the arguments and runs the named operation; refusals are `OperationError`s. A change
 * runs in one transaction with its audit record; a refused or failed one is recorded after its
 * rollback; arguments of the wrong form (ArgumentError) are not recorded.
 */
export async function executeOperation(
  context: OperationContext,
  name: string,
  rawArgs: unknown,
  meta: OperationMeta = {},
): Promise<unknown> {
  if (!isOperationName(name)) throw new OperationError(`unknown operation ${name}`);
  if (typeof rawArgs !== 'object' || rawArgs === null || Array.isArray(rawArgs)) {
    throw new OperationError('the arguments must be an object');
  }
  const raw = rawArgs as RawArgs;
  const definition = operations[name] as OperationDefinition<unknown, unknown>;
  if (definition.reads) return definition.run(context, definition.parse(raw));

  const entry = { command: commandOf(name), actor: meta.actor?.trim() || osUser(), args: raw };
  let args: unknown;
  try {
    args = definition.parse(raw);
    const parsed = args;
    if (definition.ownTransactions) {
      const result = await definition.run(context, parsed);
      await writeAuditEntry(context.db, {
        ...entry,
        outcome: 'ok',
        target: targetOf(name, definition, parsed, result),
      });
      return result;
    }
    return await context.db.transaction(async (tx) => {
      const result = await definition.run({ ...context, db: tx }, parsed);
      const target = targetOf(name, definition, parsed, result);
      await writeAuditEntry(tx, { ...entry, outcome: 'ok', target });
      return result;
    });
  } catch (error) {
    // A usage mistake (exit status 2) changed nothing and tried nothing: not recorded.
    if (error instanceof ArgumentError) throw error;
    const refused = error instanceof OperationError;
    await writeAuditEntry(context.db, {
      ...entry,
      outcome: refused ? 'refused' : 'failed',
      target: targetOf(name, definition, args, undefined),
      message: refused ? error.message : 'unexpected failure',
    }).catch(() => {
      // the database itself may be what failed: the command's own error is what matters
    });
    throw error;
  }
}
