// The one shape of an operator operation, and the argument readers every operation uses besides
// those of ids, durations and moments (src/operations/arguments.ts). Arguments arrive raw: the
// command line's strings, or the same values as JSON over the admin socket; a reader accepts both.
// An argument of the wrong form is an ArgumentError (a usage error: exit status 2); a refusal of a
// well-formed request is an OperationError (exit status 1). The table of operations is
// src/operations/index.ts.
import type { WebhookConfig } from '../config.js';
import type { ActingContext } from '../context.js';
import type { DatabaseHandle } from '../db/client.js';
import type { Message } from '../i18n/message.js';
import type { KeyChangeConfirmation } from '../instances/confirm.js';
import { Decimal, type MoneyTextProblem, moneyFromText } from '../money.js';
import { isCalendarDate } from '../values.js';
import { parseScopes } from './api-keys.js';
import { type ArgumentLabel, type RawArgs, textOf } from './arguments.js';
import type { AuditTarget } from './audit.js';
import { ArgumentError, OperationError } from './errors.js';

/** What operations run with besides their context, given by the edge (the command line or `serve`). */
export interface OperationSetup {
  handle: DatabaseHandle;
  /** TZ_NAME: every time an operation shows is in it, with its offset. */
  timeZone: string;
  /** WEBHOOK_* of the process that runs the operation (the server's, when it runs one). */
  webhooks: WebhookConfig;
  /** Where the operation runs: inside `serve` (through its admin socket), or in the command itself. */
  runsIn: 'server' | 'command';
  /**
   * Told how a change to keys or companies was confirmed by the live instances (PostgreSQL): by
   * all, or not by those `unconfirmed` names within the bound (the change is saved; they believe no
   * remembered key until they catch up).
   */
  onKeyChange?(confirmation: KeyChangeConfirmation): void;
  /** How long a change to keys or companies waits for the instances (CONFIRM_BOUND_MS). */
  confirmBoundMs?: number;
}

export interface Operation<A, R> {
  /** Reads the raw arguments; throws ArgumentError for one of the wrong form. Touches nothing. */
  parse(raw: RawArgs): A;
  run(context: ActingContext, args: A, setup: OperationSetup): Promise<R>;
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

/** An operation, its argument and result types inferred from `parse` and `run`. */
export function define<A, R>(operation: Operation<A, R>): Operation<A, R> {
  return operation;
}

// ---- argument readers: the command line's strings and the socket's JSON alike ----

export function textArg(raw: RawArgs, key: string, label: ArgumentLabel = key): string {
  const value = raw[key];
  if (typeof value !== 'string' || value.trim() === '') {
    throw new ArgumentError({ key: 'arg.required', params: { name: label } });
  }
  return value.trim();
}

export function optionalText(raw: RawArgs, key: string, label: ArgumentLabel = key): string | undefined {
  const value = raw[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new ArgumentError({ key: 'arg.text', params: { name: label } });
  return value.trim() === '' ? undefined : value.trim();
}

export function flag(raw: RawArgs, key: string): boolean {
  const value = raw[key];
  if (value === undefined || value === false) return false;
  if (value === true) return true;
  throw new ArgumentError({ key: 'arg.flag', params: { name: key } });
}

export function choice<T extends string>(raw: RawArgs, key: string, values: readonly T[]): T | undefined {
  const value = raw[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !(values as readonly string[]).includes(value)) {
    throw new ArgumentError({ key: 'arg.one_of', params: { name: key, values: values.join(', ') } });
  }
  return value as T;
}

/** A comma-separated list (or a JSON array) of strings (or `all`), trimmed, empty entries dropped. */
export function listArg(raw: RawArgs, key: string): string[] | undefined {
  const value = raw[key];
  if (value === undefined) return undefined;
  const list = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : null;
  if (!list || list.some((entry) => typeof entry !== 'string')) {
    throw new ArgumentError({ key: 'arg.list', params: { name: key } });
  }
  return (list as string[]).map((entry) => entry.trim()).filter((entry) => entry !== '');
}

const AMOUNT_PROBLEMS = {
  form: 'arg.amount_form',
  not_positive: 'arg.amount_not_positive',
  too_large: 'arg.amount_too_large',
} as const;

/** Why `raw` is not an amount, as a catalog text. */
export function amountProblem(reason: MoneyTextProblem, raw: string): Message {
  return { key: AMOUNT_PROBLEMS[reason], params: { value: raw } };
}

/** An amount as text ("1250.00"): a positive amount of money with at most 2 decimals. */
export function amountArg(raw: RawArgs, key: string): string {
  const text = textOf(raw[key]);
  if (typeof text !== 'string' || text.trim() === '') {
    throw new ArgumentError({ key: 'arg.required', params: { name: key } });
  }
  const amount = moneyFromText(text);
  if (typeof amount !== 'string') throw new ArgumentError(amountProblem(amount.problem, text));
  return text.trim();
}

export function optionalDate(raw: RawArgs, key: string): string | undefined {
  const value = raw[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !isCalendarDate(value)) {
    throw new ArgumentError({ key: 'arg.date', params: { name: key } });
  }
  return value;
}

/** An integer from `min` to `max`, or undefined when not given. */
export function optionalInteger(raw: RawArgs, key: string, min: number, max: number): number | undefined {
  const text = textOf(raw[key]);
  if (text === undefined) return undefined;
  const problem: Message = { key: 'arg.integer_range', params: { name: key, min, max } };
  if (typeof text !== 'string' || !/^[0-9]{1,9}$/.test(text.trim())) throw new ArgumentError(problem);
  const value = Number(text);
  if (value < min || value > max) throw new ArgumentError(problem);
  return value;
}

/** How many rows a list shows: 1 to 1000, `fallback` when not given. */
export function limitArg(raw: RawArgs, fallback: number): number {
  return optionalInteger(raw, 'limit', 1, 1000) ?? fallback;
}

export function scopesArg(raw: RawArgs): string[] | undefined {
  const scopes = listArg(raw, 'scopes');
  if (scopes === undefined) return undefined;
  try {
    parseScopes(scopes);
  } catch (error) {
    if (error instanceof OperationError) throw new ArgumentError(error.text);
    throw error;
  }
  return scopes;
}

/** A percentage from 0 to 100 with at most 4 decimals, as text. */
export function rateArg(raw: RawArgs): string {
  const text = textOf(raw.rate);
  if (typeof text !== 'string' || text.trim() === '') {
    throw new ArgumentError({ key: 'arg.required', params: { name: 'rate' } });
  }
  const problem: Message = { key: 'arg.rate', params: { value: text } };
  if (!/^[0-9]+(\.[0-9]+)?$/.test(text.trim())) throw new ArgumentError(problem);
  const rate = new Decimal(text.trim());
  if (rate.gt(100) || rate.decimalPlaces() > 4) throw new ArgumentError(problem);
  return text.trim();
}
