// The one dispatch table of operator operations, shared by the command line (which runs them on
// its own database connection) and the server's admin socket (which runs them on the server's
// handle). Each entry reads its raw arguments (strings from the command line, or the same JSON
// sent over the socket) with the readers of src/operations/define.ts and calls the operation
// function; results are plain JSON objects, typed: `OperationResult<'keys.create'>`.
//
// Every operation changes something unless it says `reads: true`, and each change is audited
// (src/operations/audit.ts): the operation and its audit record run in one transaction, with the
// operator (--actor or the OS user, and the command) as the actor of the context it runs in.
import { type ActingContext, forCompany, type OperatorActor } from '../context.js';
import { runInTransaction } from '../db/client.js';
import { INVOICE_STATUSES, type InvoiceStatus } from '../db/schema.js';
import { orList } from '../i18n/message.js';
import { confirmKeyChange, keyChangeOf } from '../instances/confirm.js';
import {
  createApiKey,
  DEFAULT_ROLL_GRACE_MS,
  type KeyMode,
  listApiKeys,
  MAX_KEY_DAYS,
  MAX_ROLL_GRACE_MS,
  revokeApiKey,
  rollApiKey,
} from './api-keys.js';
import {
  companyArg,
  idArg,
  optionalCompany,
  optionalDuration,
  optionalMoment,
  type RawArgs,
} from './arguments.js';
import { type AuditTarget, listAuditEntries, writeAuditEntry } from './audit.js';
import { backupOperations } from './backup.js';
import { createCompany, listCompanies, requireCompany, setPartnerApi } from './companies.js';
import {
  amountArg,
  choice,
  define,
  flag,
  limitArg,
  type Operation,
  type OperationSetup,
  optionalDate,
  optionalInteger,
  optionalText,
  rateArg,
  scopesArg,
  textArg,
} from './define.js';
import { deprecationOperations } from './deprecations.js';
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
import { listCounterOperations } from './list-counters.js';
import { lookUpCustomers, lookUpInvoices } from './lists.js';
import { listPendingPosSync } from './pos.js';
import { requestOperations } from './requests/index.js';
import { staffOperations } from './staff.js';
import { createTax, listTaxes } from './taxes.js';
import { webhookOperations } from './webhooks.js';

export type { OperationSetup } from './define.js';

function methodArg(raw: RawArgs): string | undefined {
  const method = optionalText(raw, 'method');
  if (method === undefined) return undefined;
  const normalized = method
    .toLowerCase()
    .replace(/[\s-]+/g, '_')
    .replace(/^m_pesa$/, 'mpesa');
  if (!Object.hasOwn(PAYMENT_METHODS, normalized)) {
    throw new ArgumentError({
      key: 'arg.payment_method',
      params: { method, valid: Object.keys(PAYMENT_METHODS).join(', ') },
    });
  }
  return method;
}

// ---- the table ----

export const operations = {
  migrate: define({
    // Changes the schema, not the data; the audit table itself may not exist before it runs.
    reads: true,
    parse: () => ({}),
    run: async (_context, _args, { handle }) => {
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
    parse: (raw) => ({ id: idArg(raw, 'id', { key: 'arg.label.company_id' }) }),
    run: ({ db }, args) => setPartnerApi(db, args.id, true),
    target: (args) => ({ type: 'company', id: args.id, company: args.id }),
  }),
  'companies.disable-api': define({
    parse: (raw) => ({ id: idArg(raw, 'id', { key: 'arg.label.company_id' }) }),
    run: ({ db }, args) => setPartnerApi(db, args.id, false),
    target: (args) => ({ type: 'company', id: args.id, company: args.id }),
  }),

  'keys.create': define({
    parse: (raw) => ({
      companyId: companyArg(raw),
      mode: choice<KeyMode>(raw, 'mode', ['live', 'test']),
      scopes: scopesArg(raw),
      days: optionalInteger(raw, 'days', 1, MAX_KEY_DAYS),
    }),
    run: (context, args) => createApiKey(context, args),
    target: (args, result) => ({ type: 'api_key', id: result?.id ?? null, company: args.companyId }),
  }),
  'keys.list': define({
    reads: true,
    parse: (raw) => ({ companyId: companyArg(raw) }),
    run: async (context, args) => {
      await requireCompany(context.db, args.companyId);
      return { company_id: args.companyId, keys: await listApiKeys(context, args.companyId) };
    },
  }),
  'keys.revoke': define({
    parse: (raw) => ({ id: idArg(raw, 'id', { key: 'arg.label.key_id' }) }),
    run: (context, args) => revokeApiKey(context, args.id),
    target: (args) => ({ type: 'api_key', id: args.id, company: { of: 'api_key', id: args.id } }),
  }),
  'keys.roll': define({
    parse: (raw) => ({
      id: idArg(raw, 'id', { key: 'arg.label.key_id' }),
      graceMs: optionalDuration(raw, 'grace', MAX_ROLL_GRACE_MS) ?? DEFAULT_ROLL_GRACE_MS,
    }),
    run: (context, args) => rollApiKey(context, args.id, args.graceMs),
    // The key rolled is the object; the new one is in the result, which is never recorded.
    target: (args) => ({ type: 'api_key', id: args.id, company: { of: 'api_key', id: args.id } }),
  }),

  'taxes.create': define({
    parse: (raw) => {
      const companyId = optionalCompany(raw);
      const global = flag(raw, 'global');
      if ((companyId === undefined) === !global) {
        throw new ArgumentError({ key: 'arg.tax_scope' });
      }
      return { companyId: companyId ?? null, name: textArg(raw, 'name'), rate: rateArg(raw) };
    },
    run: ({ db }, args) => createTax(db, args),
    target: (args, result) => ({ type: 'tax', id: result?.id ?? null, company: args.companyId }),
  }),
  'taxes.list': define({
    reads: true,
    parse: (raw) => ({ companyId: companyArg(raw) }),
    run: ({ db }, args) => listTaxes(db, args.companyId),
  }),

  'customers.create': define({
    parse: (raw) => {
      if (!flag(raw, 'global')) {
        throw new ArgumentError({ key: 'arg.customer_global_only' });
      }
      const email = optionalText(raw, 'email');
      if (email !== undefined && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) {
        throw new ArgumentError({ key: 'arg.email' });
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
    parse: (raw) => ({ companyId: companyArg(raw), limit: limitArg(raw, 100) }),
    run: async ({ db }, args) => {
      await requireCompany(db, args.companyId);
      return { company_id: args.companyId, customers: await lookUpCustomers(db, args) };
    },
  }),

  'invoices.list': define({
    reads: true,
    parse: (raw) => ({
      companyId: companyArg(raw),
      status: choice<InvoiceStatus>(raw, 'status', INVOICE_STATUSES),
      limit: limitArg(raw, 50),
    }),
    run: async ({ db }, args) => {
      await requireCompany(db, args.companyId);
      return { company_id: args.companyId, invoices: await lookUpInvoices(db, args) };
    },
  }),
  'invoices.issue': define({
    parse: (raw) => ({ id: idArg(raw, 'id', { key: 'arg.label.invoice_id' }) }),
    run: (context, args) => issueInvoice(context, args.id),
    target: (args) => ({ type: 'invoice', id: args.id, company: { of: 'invoice', id: args.id } }),
  }),
  'invoices.cancel': define({
    parse: (raw) => ({ id: idArg(raw, 'id', { key: 'arg.label.invoice_id' }) }),
    run: (context, args) => cancelInvoice(context, args.id),
    target: (args) => ({ type: 'invoice', id: args.id, company: { of: 'invoice', id: args.id } }),
  }),

  'payments.record': define({
    parse: (raw) => ({
      invoiceId: idArg(raw, 'invoice', 'invoice'),
      amount: amountArg(raw, 'amount'),
      date: optionalDate(raw, 'date'),
      method: methodArg(raw),
    }),
    run: (context, args) => recordReceipt(context, args),
    target: (args, result) => ({
      type: 'payment',
      id: result?.id ?? null,
      company: { of: 'invoice', id: args.invoiceId },
    }),
  }),
  'movements.record': define({
    parse: (raw) => {
      const kind = choice(raw, 'kind', MOVEMENT_KINDS);
      if (!kind)
        throw new ArgumentError({ key: 'arg.kind_required', params: { kinds: orList(MOVEMENT_KINDS) } });
      return {
        companyId: companyArg(raw),
        kind,
        amount: amountArg(raw, 'amount'),
        date: optionalDate(raw, 'date'),
      };
    },
    run: (context, args) => recordMovement(context, args),
    target: (args, result) => ({ type: 'payment', id: result?.id ?? null, company: args.companyId }),
  }),

  'pos.pending': define({
    reads: true,
    parse: (raw) => ({ companyId: companyArg(raw) }),
    run: async (context, args) => {
      await requireCompany(context.db, args.companyId);
      return {
        company_id: args.companyId,
        products: await listPendingPosSync(forCompany(context, args.companyId)),
      };
    },
  }),

  demo: define({
    // if_empty (serve): only into a database without companies, decided under a lock.
    parse: (raw) => ({ onlyIntoEmpty: flag(raw, 'if_empty') }),
    // Loaded on demand: the demo uses the API's services, which the other commands do not need.
    run: async (context, args) =>
      (await import('./demo.js')).createDemo(context, { onlyIntoEmpty: args.onlyIntoEmpty }),
    target: (_args, result) => ({ type: 'company', id: result?.id ?? null, company: result?.id ?? null }),
  }),

  'audit.list': define({
    reads: true,
    parse: (raw) => ({
      companyId: optionalCompany(raw),
      since: optionalMoment(raw, 'since'),
      limit: limitArg(raw, 100),
    }),
    run: async (context, args) => ({ entries: await listAuditEntries(context, args) }),
  }),

  ...webhookOperations,
  ...backupOperations,
  ...listCounterOperations,
  ...requestOperations,
  ...deprecationOperations,
  ...staffOperations,
};

export type OperationName = keyof typeof operations;

type ResultOf<O> = O extends Operation<infer _Args, infer Result> ? Result : never;
type Results = { [N in OperationName]: ResultOf<(typeof operations)[N]> };

/** What the named operation answers (also as JSON through the admin socket). */
export type OperationResult<N extends OperationName> = Results[N];

/** The table with each entry's argument type forgotten (method parameters are bivariant). */
const byName: { [N in OperationName]: Operation<unknown, Results[N]> } = operations;

export function isOperationName(name: string): name is OperationName {
  return Object.hasOwn(operations, name);
}

function operationNamed<N extends OperationName>(name: N): Operation<unknown, OperationResult<N>> {
  return byName[name];
}

/**
 * An operation asked for by name with JSON arguments (the admin socket): refused with an
 * OperationError unless the name is one of the table's and the arguments an object.
 */
export function executeNamedOperation(
  setup: OperationSetup,
  name: string,
  raw: unknown,
  operator: string,
): Promise<unknown> {
  if (!isOperationName(name))
    throw new OperationError({ key: 'refused.unknown_operation', params: { name } });
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new OperationError({ key: 'refused.arguments_not_object' });
  }
  return executeOperation(setup, name, raw as RawArgs, operator);
}

/** Whether the named operation only reads (is not audited). */
export function isReadOnly(name: OperationName): boolean {
  return operationNamed(name).reads === true;
}

/** Reads the arguments without running anything: an ArgumentError for the first of the wrong form. */
export function checkArguments(name: OperationName, raw: RawArgs): void {
  operationNamed(name).parse(raw);
}

/** `keys.revoke` -> `keys revoke`: the command as the operator types it. */
export function commandOf(name: OperationName): string {
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
  staff: 'staff',
};

function defaultTarget(name: OperationName, args: unknown, result: unknown): AuditTarget {
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

function targetOf<N extends OperationName>(
  name: N,
  operation: Operation<unknown, OperationResult<N>>,
  args: unknown,
  result: OperationResult<N> | undefined,
): AuditTarget {
  if (args === undefined) return { type: null, id: null, company: null };
  return operation.target ? operation.target(args, result) : defaultTarget(name, args, result);
}

/**
 * Checks the arguments and runs the named operation as `operator` (--actor or the OS user);
 * refusals are `OperationError`s. A change runs in one transaction with its audit record; a
 * refused or failed one is recorded after its rollback; arguments of the wrong form
 * (ArgumentError) are not recorded.
 */
export async function executeOperation<N extends OperationName>(
  setup: OperationSetup,
  name: N,
  raw: RawArgs,
  operator: string,
): Promise<OperationResult<N>> {
  const operation = operationNamed(name);
  const actor: OperatorActor = { kind: 'operator', name: operator, command: commandOf(name) };
  const context: ActingContext = { db: setup.handle.db, timeZone: setup.timeZone, actor };
  if (operation.reads) return operation.run(context, operation.parse(raw), setup);

  let args: unknown;
  try {
    args = operation.parse(raw);
    const parsed = args;
    if (operation.ownTransactions) {
      const result = await operation.run(context, parsed, setup);
      const target = targetOf(name, operation, parsed, result);
      await writeAuditEntry(context.db, { actor, outcome: 'ok', target, args: raw });
      return result;
    }
    const { result, keyChange } = await runInTransaction(context.db, async (tx) => {
      const result = await operation.run({ ...context, db: tx }, parsed, setup);
      const target = targetOf(name, operation, parsed, result);
      await writeAuditEntry(tx, { actor, outcome: 'ok', target, args: raw });
      return { result, keyChange: await keyChangeOf(tx) };
    });
    // A change to keys or companies is done once every live instance has applied it (bounded).
    if (keyChange !== null) {
      const confirmation = await confirmKeyChange(setup.handle.db, keyChange, setup.confirmBoundMs);
      setup.onKeyChange?.(confirmation);
    }
    return result;
  } catch (error) {
    // A usage mistake (exit status 2) changed nothing and tried nothing: not recorded.
    if (error instanceof ArgumentError) throw error;
    const refused = error instanceof OperationError;
    await writeAuditEntry(context.db, {
      actor,
      outcome: refused ? 'refused' : 'failed',
      target: targetOf(name, operation, args, undefined),
      args: raw,
      message: refused ? error.message : 'unexpected failure',
    }).catch(() => {
      // the database itself may be what failed: the command's own error is what matters
    });
    throw error;
  }
}
