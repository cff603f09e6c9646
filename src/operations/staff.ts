// People of the support console (src/console/): staff accounts live in the database, each with a
// role (admin, support, viewer, or partner of one company). `staff create` and `staff reset` give
// a setup link valid 24 hours, shown once (only its SHA-256 is kept): there the person chooses a
// password and enrols a TOTP second factor. `staff disable` and `staff reset` end the person's
// sessions at once (the rows are deleted; the console reads them at every request).
import { createHash, randomBytes } from 'node:crypto';
import { and, asc, eq, isNull, sql } from 'drizzle-orm';
import type { ActingContext } from '../context.js';
import type { Database } from '../db/client.js';
import { STAFF_ROLES, type StaffRole, staffAccounts, staffSessions } from '../db/schema.js';
import { formatTimestamp } from '../format.js';
import { idArg, optionalCompany, type RawArgs } from './arguments.js';
import { requireCompany } from './companies.js';
import { choice, define, textArg } from './define.js';
import { ArgumentError, OperationError } from './errors.js';

export const SETUP_LINK_HOURS = 24;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** The SHA-256 (hex) of a setup token or a session token: what the database keeps. */
export function tokenDigest(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export interface StaffSummary {
  id: number;
  email: string;
  name: string;
  role: StaffRole;
  company_id: number | null;
  /** `setup pending` (no password yet), `active` or `disabled`. */
  state: 'setup pending' | 'active' | 'disabled';
  created_at: string;
}

export interface StaffWithSetupLink extends StaffSummary {
  /** Shown once: the path of the setup page on the console (CONSOLE_URL before it). */
  setup_path: string;
  setup_expires_at: string;
}

type Row = typeof staffAccounts.$inferSelect;

function summaryOf(row: Row, timeZone: string): StaffSummary {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    role: row.role,
    company_id: row.companyId,
    state: row.disabledAt
      ? 'disabled'
      : row.passwordHash && row.totpSecretSealed
        ? 'active'
        : 'setup pending',
    created_at: formatTimestamp(row.createdAt, timeZone),
  };
}

function newSetupToken(): { token: string; digest: string; expiresAt: Date } {
  const token = randomBytes(32).toString('base64url');
  return {
    token,
    digest: tokenDigest(token),
    expiresAt: new Date(Date.now() + SETUP_LINK_HOURS * 3_600_000),
  };
}

function withLink(row: Row, token: string, timeZone: string): StaffWithSetupLink {
  return {
    ...summaryOf(row, timeZone),
    setup_path: `/setup/${token}`,
    setup_expires_at: formatTimestamp(row.setupExpiresAt ?? new Date(), timeZone),
  };
}

export interface CreateStaffInput {
  email: string;
  name: string;
  role: StaffRole;
  companyId?: number | undefined;
}

export async function createStaff(
  context: ActingContext,
  input: CreateStaffInput,
): Promise<StaffWithSetupLink> {
  const { db, timeZone } = context;
  if (input.companyId !== undefined) await requireCompany(db, input.companyId);
  const [taken] = await db
    .select({ id: staffAccounts.id })
    .from(staffAccounts)
    .where(eq(staffAccounts.email, input.email));
  if (taken) throw new OperationError({ key: 'refused.staff_email_taken', params: { email: input.email } });
  const setup = newSetupToken();
  const [row] = await db
    .insert(staffAccounts)
    .values({
      email: input.email,
      name: input.name,
      role: input.role,
      companyId: input.companyId ?? null,
      setupTokenHash: setup.digest,
      setupExpiresAt: setup.expiresAt,
    })
    .returning();
  if (!row) throw new Error('insert returned no row');
  return withLink(row, setup.token, timeZone);
}

export async function listStaff(context: ActingContext): Promise<StaffSummary[]> {
  const rows = await context.db.select().from(staffAccounts).orderBy(asc(staffAccounts.id));
  return rows.map((row) => summaryOf(row, context.timeZone));
}

async function requireStaff(db: Database, id: number): Promise<Row> {
  const [row] = await db.select().from(staffAccounts).where(eq(staffAccounts.id, id));
  if (!row) throw new OperationError({ key: 'refused.staff_missing', params: { id } });
  return row;
}

/** Ends every session of the person at once (the console looks each session up at every request). */
export async function endSessionsOf(db: Database, staffId: number): Promise<number> {
  const ended = await db.delete(staffSessions).where(eq(staffSessions.staffId, staffId)).returning();
  return ended.length;
}

export async function disableStaff(
  context: ActingContext,
  id: number,
): Promise<StaffSummary & { sessions_ended: number }> {
  await requireStaff(context.db, id);
  const [row] = await context.db
    .update(staffAccounts)
    .set({
      disabledAt: sql`coalesce(${staffAccounts.disabledAt}, now())`,
      setupTokenHash: null,
      setupExpiresAt: null,
    })
    .where(eq(staffAccounts.id, id))
    .returning();
  if (!row) throw new OperationError({ key: 'refused.staff_missing', params: { id } });
  return { ...summaryOf(row, context.timeZone), sessions_ended: await endSessionsOf(context.db, id) };
}

/** A new setup link: the old password and second factor stop working, sessions end at once. */
export async function resetStaff(
  context: ActingContext,
  id: number,
): Promise<StaffWithSetupLink & { sessions_ended: number }> {
  const current = await requireStaff(context.db, id);
  if (current.disabledAt) throw new OperationError({ key: 'refused.staff_disabled', params: { id } });
  const setup = newSetupToken();
  const [row] = await context.db
    .update(staffAccounts)
    .set({
      passwordHash: null,
      totpSecretSealed: null,
      totpPendingSealed: null,
      totpLastStep: null,
      setupTokenHash: setup.digest,
      setupExpiresAt: setup.expiresAt,
    })
    .where(and(eq(staffAccounts.id, id), isNull(staffAccounts.disabledAt)))
    .returning();
  if (!row) throw new OperationError({ key: 'refused.staff_disabled', params: { id } });
  return {
    ...withLink(row, setup.token, context.timeZone),
    sessions_ended: await endSessionsOf(context.db, id),
  };
}

function emailArg(raw: RawArgs): string {
  const email = textArg(raw, 'email').toLowerCase();
  if (!EMAIL.test(email) || email.length > 254) throw new ArgumentError({ key: 'arg.email' });
  return email;
}

const MAX_STAFF_NAME = 200;

function staffArgs(raw: RawArgs): CreateStaffInput {
  const role = choice<StaffRole>(raw, 'role', STAFF_ROLES);
  if (!role) throw new ArgumentError({ key: 'arg.staff_role', params: { roles: STAFF_ROLES.join(', ') } });
  const companyId = optionalCompany(raw);
  if ((role === 'partner') !== (companyId !== undefined)) {
    throw new ArgumentError({ key: role === 'partner' ? 'arg.partner_company' : 'arg.company_partner_only' });
  }
  const name = textArg(raw, 'name');
  if (name.length > MAX_STAFF_NAME)
    throw new ArgumentError({ key: 'arg.name_length', params: { max: MAX_STAFF_NAME } });
  return { email: emailArg(raw), name, role, companyId };
}

const staffTarget = (result: { id?: number; company_id?: number | null } | undefined, id?: number) => ({
  type: 'staff',
  id: result?.id ?? id ?? null,
  company: result?.company_id ?? null,
});

export const staffOperations = {
  'staff.create': define({
    parse: staffArgs,
    run: (context, args) => createStaff(context, args),
    target: (args, result) => ({ ...staffTarget(result), company: args.companyId ?? null }),
  }),
  'staff.list': define({
    reads: true,
    parse: () => ({}),
    run: async (context) => ({ staff: await listStaff(context) }),
  }),
  'staff.disable': define({
    parse: (raw) => ({ id: idArg(raw, 'id', { key: 'arg.label.staff_id' }) }),
    run: (context, args) => disableStaff(context, args.id),
    target: (args, result) => staffTarget(result, args.id),
  }),
  'staff.reset': define({
    parse: (raw) => ({ id: idArg(raw, 'id', { key: 'arg.label.staff_id' }) }),
    run: (context, args) => resetStaff(context, args.id),
    target: (args, result) => staffTarget(result, args.id),
  }),
};
