// Console logins are throttled per account and per client address, in the database (so every
// instance counts the same failures). After 10 failures for an account (the e-mail typed, whether
// or not an account has it: the answer never tells which exist) within 15 minutes, that account's
// logins are refused for 15 minutes, also with the right password; an address is locked the same
// way after 30 failures (several people may share one office address). Refused attempts during a
// lock are not counted again: the lock ends 15 minutes after it began.
import { and, count, eq, gt, inArray, lt, sql } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { consoleLoginFailures, consoleLoginLocks } from '../db/schema.js';

export const THROTTLE_WINDOW_MS = 15 * 60_000;
export const LOCK_MS = 15 * 60_000;
export const ACCOUNT_FAILURES = 10;
export const ADDRESS_FAILURES = 30;

export interface LoginSubjects {
  account: string;
  address: string;
}

export function subjectsOf(email: string, address: string): LoginSubjects {
  return { account: `email:${email.trim().toLowerCase()}`, address: `ip:${address}` };
}

/** Whether either subject is locked now. */
export async function isLocked(db: Database, subjects: LoginSubjects): Promise<boolean> {
  const [row] = await db
    .select({ n: count() })
    .from(consoleLoginLocks)
    .where(
      and(
        inArray(consoleLoginLocks.subject, [subjects.account, subjects.address]),
        gt(consoleLoginLocks.until, sql`now()`),
      ),
    );
  return (row?.n ?? 0) > 0;
}

async function failuresSince(db: Database, subject: string): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(consoleLoginFailures)
    .where(
      and(
        eq(consoleLoginFailures.subject, subject),
        gt(consoleLoginFailures.at, sql`now() - make_interval(secs => ${THROTTLE_WINDOW_MS / 1000})`),
      ),
    );
  return row?.n ?? 0;
}

async function lock(db: Database, subject: string): Promise<void> {
  const until = sql`now() + make_interval(secs => ${LOCK_MS / 1000})`;
  await db
    .insert(consoleLoginLocks)
    .values({ subject, until })
    .onConflictDoUpdate({ target: consoleLoginLocks.subject, set: { until } });
  // The lock's own failures are spent: after it, the count starts again.
  await db.delete(consoleLoginFailures).where(eq(consoleLoginFailures.subject, subject));
}

/** Counts a failure of both subjects; locks those that reached their limit. */
export async function recordFailure(db: Database, subjects: LoginSubjects): Promise<void> {
  await db
    .insert(consoleLoginFailures)
    .values([{ subject: subjects.account }, { subject: subjects.address }]);
  if ((await failuresSince(db, subjects.account)) >= ACCOUNT_FAILURES) await lock(db, subjects.account);
  if ((await failuresSince(db, subjects.address)) >= ADDRESS_FAILURES) await lock(db, subjects.address);
  // Old rows go as new ones come: the table stays the size of 15 minutes of failures.
  await db
    .delete(consoleLoginFailures)
    .where(lt(consoleLoginFailures.at, sql`now() - make_interval(secs => ${THROTTLE_WINDOW_MS / 1000})`));
}

/** A successful login forgets the account's failures (not the address's). */
export async function clearFailures(db: Database, subjects: LoginSubjects): Promise<void> {
  await db.delete(consoleLoginFailures).where(eq(consoleLoginFailures.subject, subjects.account));
}
