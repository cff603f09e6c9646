// The operator's audit trail: every command that changes something leaves one row, written in the
// same transaction as the change (src/operations/index.ts wraps each such operation), saying when,
// which command and who (the operator actor: --actor or the OS user), the company and object, and
// the outcome. A refused
// or failed command is recorded too, after its rollback. Secrets never enter it: the arguments are
// recorded without any whose name suggests a secret, and results (which may hold a new API key)
// never are. `bin/invoicing audit` reads it.
import { and, desc, eq, type SQL } from 'drizzle-orm';
import type { ActingContext, OperatorActor } from '../context.js';
import type { Database } from '../db/client.js';
import { type AuditOutcome, apiKeys, auditLog, invoices } from '../db/schema.js';
import { formatTimestamp } from '../format.js';
import { atOrAfter, type Moment } from './arguments.js';

/** Argument names whose values are never recorded. */
const SECRET_NAME = /secret|password|token|^key$|api_?key/i;

export function withoutSecrets(args: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(args).map(([name, value]) => [name, SECRET_NAME.test(name) ? '[not recorded]' : value]),
  );
}

/** What a command changed: the object, and its company directly or through a row that names it. */
export interface AuditTarget {
  type: string | null;
  id: number | null;
  company: number | null | { of: 'invoice' | 'api_key'; id: number };
}

export interface AuditEntryInput {
  /** Who ran which command. */
  actor: OperatorActor;
  outcome: AuditOutcome;
  target: AuditTarget;
  args: Record<string, unknown>;
  /** Why it was refused (the operator's message), or that it failed. */
  message?: string;
}

async function companyOf(db: Database, company: AuditTarget['company']): Promise<number | null> {
  if (company === null || typeof company === 'number') return company;
  const table = company.of === 'invoice' ? invoices : apiKeys;
  const [row] = await db.select({ companyId: table.companyId }).from(table).where(eq(table.id, company.id));
  return row?.companyId ?? null;
}

export async function writeAuditEntry(db: Database, entry: AuditEntryInput): Promise<void> {
  await db.insert(auditLog).values({
    command: entry.actor.command,
    actor: entry.actor.name,
    companyId: await companyOf(db, entry.target.company),
    objectType: entry.target.type,
    objectId: entry.target.id,
    outcome: entry.outcome,
    detail: {
      args: withoutSecrets(entry.args),
      ...(entry.message === undefined ? {} : { message: entry.message }),
    },
  });
}

export interface AuditEntry {
  id: number;
  at: string;
  command: string;
  actor: string;
  company_id: number | null;
  object_type: string | null;
  object_id: number | null;
  outcome: AuditOutcome;
  detail: typeof auditLog.$inferSelect.detail;
}

export interface AuditQuery {
  companyId?: number;
  since?: Moment;
  limit: number;
}

/** The newest `limit` entries that match, oldest first. */
export async function listAuditEntries(context: ActingContext, query: AuditQuery): Promise<AuditEntry[]> {
  const { db, timeZone } = context;
  const conditions: SQL[] = [];
  if (query.companyId !== undefined) conditions.push(eq(auditLog.companyId, query.companyId));
  if (query.since !== undefined) conditions.push(atOrAfter(auditLog.at, query.since, timeZone));
  const rows = await db
    .select()
    .from(auditLog)
    .where(conditions.length > 0 ? and(...conditions) : undefined)
    .orderBy(desc(auditLog.at), desc(auditLog.id))
    .limit(query.limit);
  return rows.reverse().map((row) => ({
    id: row.id,
    at: formatTimestamp(row.at, timeZone),
    command: row.command,
    actor: row.actor,
    company_id: row.companyId,
    object_type: row.objectType,
    object_id: row.objectId,
    outcome: row.outcome,
    detail: row.detail,
  }));
}
