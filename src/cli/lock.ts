// The embedded PGlite directory may be opened by one process only. Whoever opens it (`serve`, or a
// CLI command when no server runs) first takes this lock: a file in DATA_DIR holding the owner's
// pid. A lock whose pid is dead (or is our own pid, left by an earlier life of this container) is
// stale and taken over.
// Whoever takes the lock also makes the directory private (src/db/data-dir.ts), also an existing
// one with loose modes.

import { randomBytes } from 'node:crypto';
import { linkSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createPrivateDir, restrictDataDir } from '../db/data-dir.js';
import type { Message } from '../i18n/message.js';

export type LockRole = 'serve' | 'cli';

export interface LockOwner {
  pid: number;
  role: LockRole;
  started_at: string;
}

export interface DataDirLock {
  path: string;
  release(): void;
}

export type LockAttempt =
  | { acquired: true; lock: DataDirLock }
  | { acquired: false; owner: LockOwner | null };

export const LOCK_FILE = 'invoicing.lock';

export function lockPath(dataDir: string): string {
  return join(resolve(dataDir), LOCK_FILE);
}

function readOwner(path: string): { raw: string; owner: LockOwner | null } | null {
  let raw: string;
  try {
    raw = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  try {
    const parsed = JSON.parse(raw) as Partial<LockOwner>;
    if (typeof parsed.pid === 'number' && Number.isInteger(parsed.pid) && parsed.pid > 0) {
      return {
        raw,
        owner: {
          pid: parsed.pid,
          role: parsed.role === 'serve' ? 'serve' : 'cli',
          started_at: `${parsed.started_at}`,
        },
      };
    }
  } catch {
    // unreadable content: treated as stale below
  }
  return { raw, owner: null };
}

export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function isLive(owner: LockOwner | null): owner is LockOwner {
  return owner !== null && owner.pid !== process.pid && isProcessAlive(owner.pid);
}

/** One attempt, never waits. The lock file appears atomically with its content (write + hard link). */
export function tryAcquireLock(dataDir: string, role: LockRole): LockAttempt {
  createPrivateDir(dataDir);
  const path = lockPath(dataDir);
  const mine: LockOwner = { pid: process.pid, role, started_at: new Date().toISOString() };
  const content = JSON.stringify(mine);
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(temporary, content, { mode: 0o600 });
  try {
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        linkSync(temporary, path);
        const lock = heldLock(path, content);
        // Ours now: what is already there becomes private too.
        restrictDataDir(dataDir);
        return { acquired: true, lock };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const current = readOwner(path);
      if (current === null) continue; // released meanwhile: try again
      if (isLive(current.owner)) return { acquired: false, owner: current.owner };
      // Stale. Move it aside atomically, then make sure what we moved is the stale file we judged
      // (another process may have replaced it in between); if not, put it back.
      const aside = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.stale`;
      try {
        renameSync(path, aside);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw error;
      }
      const moved = readOwner(aside);
      if (moved && moved.raw !== current.raw && isLive(moved.owner)) {
        try {
          linkSync(aside, path);
        } catch {
          // someone else holds it now; they are live either way
        }
        unlinkQuietly(aside);
        return { acquired: false, owner: moved.owner };
      }
      unlinkQuietly(aside);
    }
    return { acquired: false, owner: readOwner(path)?.owner ?? null };
  } finally {
    unlinkQuietly(temporary);
  }
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}

function heldLock(path: string, content: string): DataDirLock {
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    process.removeListener('exit', release);
    // Remove it only while it is still ours.
    if (readOwner(path)?.raw === content) unlinkQuietly(path);
  };
  // A process that exits without releasing (error, process.exit) still frees the directory.
  process.once('exit', release);
  return { path, release };
}

/** Who holds the lock, told in the operator's language. */
export function describeOwner(owner: LockOwner | null): Message {
  if (!owner) return { key: 'lock.owner_unknown' };
  return {
    key: owner.role === 'serve' ? 'lock.owner_server' : 'lock.owner_command',
    params: { pid: owner.pid },
  };
}
