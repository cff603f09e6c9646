// The embedded database's directory is private to the account running the service: created
// 0700 with files 0600 whatever the umask it was started with, and an existing directory with
// loose modes (an older version, files copied in) is made private on start.
import { chmodSync, lstatSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PROCESS_TEST_TIMEOUT_MS } from '../helpers/cli.js';
import { testStorage } from '../helpers/database.js';
import { type ServerProcess, startServerProcess } from '../helpers/server-process.js';

/** Every path under dir (itself included) with its permission bits. */
function modes(dir: string): { path: string; mode: number; directory: boolean }[] {
  const found: { path: string; mode: number; directory: boolean }[] = [];
  const visit = (path: string) => {
    const stat = lstatSync(path);
    found.push({ path, mode: stat.mode & 0o777, directory: stat.isDirectory() });
    if (stat.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
  };
  visit(dir);
  return found;
}

function loosen(dir: string): void {
  for (const entry of modes(dir)) chmodSync(entry.path, entry.directory ? 0o777 : 0o666);
}

function expectPrivate(dir: string): void {
  const entries = modes(dir);
  expect(entries.length).toBeGreaterThan(100); // the database's own files are there
  expect(entries[0]?.mode).toBe(0o700);
  const open = entries.filter((entry) => (entry.mode & 0o077) !== 0);
  expect(open.map((entry) => `${entry.path} ${entry.mode.toString(8)}`)).toEqual([]);
}

describe.runIf(testStorage() === 'pglite')(
  'DATA_DIR is private',
  { timeout: PROCESS_TEST_TIMEOUT_MS },
  () => {
    const parent = mkdtempSync(join(tmpdir(), 'partner-api-modes-'));
    const dataDir = join(parent, 'data');
    const servers: ServerProcess[] = [];
    const previousUmask = process.umask();

    afterAll(async () => {
      process.umask(previousUmask);
      for (const server of servers) await server.kill('SIGKILL');
      rmSync(parent, { recursive: true, force: true });
    });

    it('is created 0700 with private files even under umask 000, and an existing one is fixed on start', async () => {
      // The server inherits the most permissive umask there is.
      process.umask(0o000);
      const first = await startServerProcess({ DATA_DIR: dataDir }, undefined, ['--demo']);
      servers.push(first);
      const key = /svc_sk_live_[A-Za-z0-9]+/.exec(first.output())?.[0];
      // A few writes, so the database creates files after start too.
      for (let i = 0; i < 3; i++) {
        const res = await fetch(`${first.baseUrl}/customers`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${key}`,
            'content-type': 'application/json',
            'idempotency-key': `modes-${i}-0000`,
          },
          body: JSON.stringify({ name: `Cliente ${i}` }),
        });
        expect(res.status).toBe(201);
      }
      expectPrivate(dataDir);
      expect(lstatSync(join(dataDir, 'admin.sock')).mode & 0o777).toBe(0o600);
      await first.kill('SIGTERM');

      // An older version left it open to everyone: the next start closes it.
      loosen(dataDir);
      expect(lstatSync(dataDir).mode & 0o777).toBe(0o777);
      const second = await startServerProcess({ DATA_DIR: dataDir });
      servers.push(second);
      expectPrivate(dataDir);
      const ping = await fetch(`${second.baseUrl}/ping`, { headers: { authorization: `Bearer ${key}` } });
      expect(ping.status).toBe(200);
    });
  },
);
