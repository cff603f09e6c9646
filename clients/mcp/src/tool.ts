// The shape of one curated tool, and the pieces the read and write tools share.
import type { PartnerApi, Ping } from '@invoicing/partner-api';
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { paginationSchema } from './schemas.js';

export type Scope =
  | 'customers:read'
  | 'customers:write'
  | 'products:read'
  | 'products:write'
  | 'invoices:read'
  | 'invoices:write'
  | 'payments:read';

/** What the server lets this key do, decided once when the session starts. */
export interface Access {
  /** Write tools listed (live key, their scope, and --allow-writes). */
  writeTools: string[];
  /** Why writes are on or off, in a sentence for the assistant and the person. */
  writesNote: string;
}

/** What a tool's run gets besides its arguments. */
export interface ToolContext {
  api: PartnerApi;
  /** Ends the API call when the assistant cancels the tool call. */
  signal: AbortSignal;
  /** Whether the last write with this Idempotency-Key was answered from the API's record. */
  wasReplayed(idempotencyKey: string): boolean;
  access: Access;
  /** The key's identity as learnt when the session started (null when /ping was refused). */
  identity: Ping | null;
}

export interface ToolSpec<I extends z.ZodObject = z.ZodObject, O extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  description: string;
  /** The scope the key needs for the tool to be listed (who_am_i: none). */
  scope: Scope | null;
  /** Write tools are listed only for a live key with their scope, on a server started with --allow-writes. */
  write: boolean;
  input: I;
  output: O;
  annotations: ToolAnnotations;
  /** The structured result and a one-line summary in this server's own words (no record text). */
  run(args: z.output<I>, context: ToolContext): Promise<{ summary: string; result: z.output<O> }>;
}

export function defineTool<I extends z.ZodObject, O extends z.ZodObject>(spec: ToolSpec<I, O>): ToolSpec {
  return spec as unknown as ToolSpec;
}

/** Reads: no effect on the company's data; the same call answers the same while nothing changes. */
export const READ_ONLY: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  // One company's records in one service: a closed domain, not the open web.
  openWorldHint: false,
};

/** The most a list tool asks the API for in one call: one page of at most 100. */
export const PAGES_PER_CALL = 1;
export const MAX_PER_PAGE = 100;

export const listInput = {
  page: z.number().int().min(1).max(2147483647).optional().describe('page number, from 1 (default 1)'),
  per_page: z
    .number()
    .int()
    .min(1)
    .max(MAX_PER_PAGE)
    .optional()
    .describe(`items per page, 1 to ${MAX_PER_PAGE} (default 25)`),
  order: z.enum(['asc', 'desc']).optional().describe('asc or desc (default asc when sort is given)'),
};

export const isoDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/)
  .describe('a date, YYYY-MM-DD');

export const updatedSince = z
  .string()
  .min(10)
  .max(40)
  .describe(
    'only records changed at or after this moment: an ISO 8601 date or timestamp, e.g. 2026-11-01 or 2026-11-01T08:00:00Z',
  );

export const pageOutput = {
  pagination: paginationSchema.describe('total, count, per_page, current_page, last_page'),
  next_page: z.number().int().nullable().describe('the page to ask for next, or null on the last page'),
};

export const LIST_NOTE = `Returns ONE page (default 25 items, at most ${MAX_PER_PAGE}) with its pagination and next_page; ask for more with page=next_page. One call is one API request: this server never walks pages on its own.`;

export function nextPage(pagination: { current_page: number; last_page: number }): number | null {
  return pagination.current_page < pagination.last_page ? pagination.current_page + 1 : null;
}

export function pageSummary(noun: string, pagination: z.output<typeof paginationSchema>): string {
  const next = nextPage(pagination);
  return (
    `${pagination.count} of ${pagination.total} ${noun}, page ${pagination.current_page} of ${pagination.last_page}` +
    (next === null ? '.' : `; next page: ${next}.`)
  );
}

/** Query parameters without the ones the assistant left out. */
export function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as Partial<T>;
}
