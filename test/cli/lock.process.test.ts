// The DATA_DIR lock that keeps the embedded database to one process, and how commands behave
// around it (PGlite project); with PostgreSQL, commands never touch DATA_DIR.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminSocketPath } from '../../src/cli/admin-socket.js';
import { LOCK_FILE, lockPath, tryAcquireLock } from '../../src/cli/lock.js';
import {
  type CliStorage,
  cliJson,
  createCliStorage,
  PROCESS_TEST_TIMEOUT_MS,
  runCli,
} from '../helpers/cli.js';
import { testStorage } from '../helpers/database.js';

/** A live process that is not this one, to own a lock. */
function sleeper(): ChildProcess {
  return spawn(process.execPath, ['-e', 'setTimeout(() => {}, 120000)'], { stdio: 'ignore' });
}

describe('DATA_DIR lock', { timeout: PROCESS_TEST_TIMEOUT_MS }, () => {
  let dir: string;
  let other: ChildProcess;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'invoicing-lock-'));
    other = sleeper();
  });
  afterAll(async () => {
    other.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  });

  it('is taken, refused to others while held, and released', () => {
    const data = join(dir, 'a');
    const first = tryAcquireLock(data, 'serve');
    expect(first.acquired).toBe(true);
    const content = JSON.parse(readFileSync(lockPath(data), 'utf8'));
    expect(content).toMatchObject({ pid: process.pid, role: 'serve' });
    if (first.acquired) first.lock.release();
    expect(existsSync(lockPath(data))).toBe(false);
  });

  it('a lock of a live process is respected; a dead or our own pid is stale and taken over', () => {
    const data = join(dir, 'b');
    mkdirSync(data, { recursive: true });
    const path = join(data, LOCK_FILE);
    writeFileSync(path, JSON.stringify({ pid: other.pid, role: 'cli', started_at: 'x' }));
    const refused = tryAcquireLock(data, 'cli');
    expect(refused).toEqual({ acquired: false, owner: { pid: other.pid, role: 'cli', started_at: 'x' } });

    for (const stale of [
      { pid: 2 ** 22 + 17, role: 'serve' },
      { pid: process.pid, role: 'serve' },
      'garbage',
    ]) {
      writeFileSync(path, typeof stale === 'string' ? stale : JSON.stringify(stale));
      const taken = tryAcquireLock(data, 'cli');
      expect(taken.acquired, JSON.stringify(stale)).toBe(true);
      if (taken.acquired) taken.lock.release();
    }
  });

  it('release never removes a lock that another process took since', () => {
    const data = join(dir, 'c');
    const mine = tryAcquireLock(data, 'cli');
    expect(mine.acquired).toBe(true);
    writeFileSync(lockPath(data), JSON.stringify({ pid: other.pid, role: 'serve', started_at: 'y' }));
    if (mine.acquired) mine.lock.release();
    expect(JSON.parse(readFileSync(lockPath(data), 'utf8')).pid).toBe(other.pid);
  });
});

describe.runIf(testStorage() === 'pglite')(
  'commands on the embedded database without a server',
  { timeout: PROCESS_TEST_TIMEOUT_MS },
  () => {
    let storage: CliStorage;
    let other: ChildProcess;
    beforeAll(async () => {
      storage = await createCliStorage();
      other = sleeper();
    });
    afterAll(async () => {
      other.kill('SIGKILL');
      await storage?.close();
    });

    it('open the database themselves and leave neither lock nor socket behind', async () => {
      const dataDir = storage.env.DATA_DIR as string;
      const created = await cliJson<{ id: number }>(
        ['companies', 'create', '--name', 'Sem servidor'],
        storage.env,
      );
      expect(created.id).toBeGreaterThan(0);
      expect(existsSync(lockPath(dataDir))).toBe(false);
      expect(existsSync(adminSocketPath(dataDir))).toBe(false);
    });

    it('take over a stale lock and ignore a dead socket file', async () => {
      const dataDir = storage.env.DATA_DIR as string;
      writeFileSync(
        lockPath(dataDir),
        JSON.stringify({ pid: 2 ** 22 + 17, role: 'serve', started_at: 'old' }),
      );
      writeFileSync(adminSocketPath(dataDir), ''); // left by a killed server: nothing listens
      const list = await cliJson<{ companies: { name: string }[] }>(['companies', 'list'], storage.env);
      expect(list.companies.map((c) => c.name)).toContain('Sem servidor');
      expect(existsSync(lockPath(dataDir))).toBe(false);
      await unlink(adminSocketPath(dataDir));
    });

    it('wait while another process holds the directory, then run', async () => {
      const dataDir = storage.env.DATA_DIR as string;
      writeFileSync(lockPath(dataDir), JSON.stringify({ pid: other.pid, role: 'cli', started_at: 'now' }));
      const started = Date.now();
      const pending = runCli(['companies', 'list', '--json'], storage.env);
      await new Promise((resolve) => setTimeout(resolve, 1500));
      await unlink(lockPath(dataDir));
      const result = await pending;
      expect(result.code, result.stderr).toBe(0);
      expect(Date.now() - started).toBeGreaterThanOrEqual(1500);
      expect(JSON.parse(result.stdout).companies.length).toBeGreaterThan(0);
    });
  },
);

describe.runIf(testStorage() === 'postgres')(
  'commands on PostgreSQL',
  { timeout: PROCESS_TEST_TIMEOUT_MS },
  () => {
    let storage: CliStorage;
    beforeAll(async () => {
      storage = await createCliStorage();
    });
    afterAll(() => storage?.close());

    it('never create or lock DATA_DIR, and may run side by side', async () => {
      const unused = join(tmpdir(), `invoicing-unused-${process.pid}-${Date.now()}`);
      const env = { ...storage.env, DATA_DIR: unused };
      const results = await Promise.all(
        ['Primeira', 'Segunda', 'Terceira'].map((name) =>
          runCli(['companies', 'create', '--name', name, '--json'], env),
        ),
      );
      for (const result of results) expect(result.code, result.stderr).toBe(0);
      expect(new Set(results.map((r) => JSON.parse(r.stdout).id)).size).toBe(3);
      expect(existsSync(unused)).toBe(false);
    });
  },
);
