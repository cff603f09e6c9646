// Console sessions live in the database: the cookie carries a random token (32 bytes), the
// table its SHA-256, so that neither a copy of the table nor a log gives a usable session. A new
// token at every login (an old cookie is ended, never upgraded); 30 minutes idle and 12 hours at
// most; deleting the row (logout, `staff disable`, `staff reset`) ends it at once everywhere.
import { randomBytes } from 'node:crypto';
import { and, eq, isNotNull, isNull, lt, or, sql } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { type StaffRole, staffAccounts, staffSessions } from '../db/schema.js';
import { tokenDigest } from '../operations/staff.js';

export const IDLE_MS = 30 * 60_000;
export const MAX_SESSION_MS = 12 * 3_600_000;
/** lastSeenAt is written at most this often: a page view is not a write each time. */
const TOUCH_EVERY_MS = 60_000;

export interface StaffMember {
  id: number;
  email: string;
  name: string;
  role: StaffRole;
  companyId: number | null;
}

export interface Session {
  /** The digest: the row's id. */
  id: string;
  staff: StaffMember;
}

/** Starts a session for the person; returns the token for the cookie. */
export async function startSession(db: Database, staffId: number): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await db.insert(staffSessions).values({ id: tokenDigest(token), staffId });
  return token;
}

export async function endSession(db: Database, token: string): Promise<void> {
  await db.delete(staffSessions).where(eq(staffSessions.id, tokenDigest(token)));
}

/** The live session of a cookie's token, or null (unknown, idle, too old, or its person disabled). */
export async function findSession(db: Database, token: string): Promise<Session | null> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return null;
  const id = tokenDigest(token);
  const [row] = await db
    .select({
      createdAt: staffSessions.createdAt,
      lastSeenAt: staffSessions.lastSeenAt,
      now: sql<Date>`now()`.mapWith((value: string | Date) => new Date(value)),
      staffId: staffAccounts.id,
      email: staffAccounts.email,
      name: staffAccounts.name,
      role: staffAccounts.role,
      companyId: staffAccounts.companyId,
    })
    .from(staffSessions)
    .innerJoin(staffAccounts, eq(staffAccounts.id, staffSessions.staffId))
    .where(
      and(
        eq(staffSessions.id, id),
        isNull(staffAccounts.disabledAt),
        isNotNull(staffAccounts.passwordHash),
        isNotNull(staffAccounts.totpSecretSealed),
      ),
    );
  if (!row) return null;
  const now = row.now.getTime();
  if (now - row.lastSeenAt.getTime() > IDLE_MS || now - row.createdAt.getTime() > MAX_SESSION_MS) {
    await db.delete(staffSessions).where(eq(staffSessions.id, id));
    return null;
  }
  if (now - row.lastSeenAt.getTime() > TOUCH_EVERY_MS) {
    await db.update(staffSessions).set({ lastSeenAt: sql`now()` }).where(eq(staffSessions.id, id));
  }
  return {
    id,
    staff: { id: row.staffId, email: row.email, name: row.name, role: row.role, companyId: row.companyId },
  };
}

/** Sessions past their idle or total limit: deleted now and then (each is also refused when used). */
export async function pruneSessions(db: Database): Promise<void> {
  await db
    .delete(staffSessions)
    .where(
      or(
        lt(staffSessions.lastSeenAt, sql`now() - make_interval(secs => ${IDLE_MS / 1000})`),
        lt(staffSessions.createdAt, sql`now() - make_interval(secs => ${MAX_SESSION_MS / 1000})`),
      ),
    );
}
