// Backups (issue 20, item 4), as an operator takes them. Embedded database: `bin/invoicing backup`
// copies it while the server runs and writes go on; `restore` refuses a running server's directory
// and a non-empty one (unless --force), and the restored directory serves the same data through
// the API. PostgreSQL: the README's pg_dump / pg_restore recipe, restored into a new database.
// A backup and a restore run the real bin/invoicing; the refusals and the repeated commands run
// main() in this process (the same command line, one at a time).
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import {
  apiCall,
  cliJson,
  commandJson,
  runInProcess,
  type ServeProcess,
  startServe,
} from '../helpers/cli.js';
import {
  createEmptyPostgresDatabase,
  createTestDatabase,
  migratedDataDir,
  testStorage,
} from '../helpers/database.js';

// The command line's texts asserted here are English: every command asks for English (Portuguese is
// the default, test/cli/language.unit.test.ts).
const EN = { INVOICING_LANG: 'en' };

const run = promisify(execFile);

describe(`backups (${testStorage()})`, () => {
  const servers: ServeProcess[] = [];
  const cleanups: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const server of servers) await server.stop();
    for (const cleanup of cleanups) await cleanup();
  });
  const serve = async (env: Record<string, string>, args: string[] = []) => {
    const server = await startServe(env, { args });
    servers.push(server);
    return server;
  };
  const customer = (name: string) => ({
    name,
    email: `${name.toLowerCase().replace(/\W+/g, '.')}@exemplo.co.mz`,
  });

  it.runIf(testStorage() === 'pglite')(
    'embedded: backup while the server runs and writes go on; restore refuses, then brings the same data back',
    async () => {
      const work = await mkdtemp(join(tmpdir(), 'invoicing-backup-'));
      cleanups.push(() => rm(work, { recursive: true, force: true }));
      const original = { DATA_DIR: await migratedDataDir(join(work, 'data')) };
      const file = join(work, 'copies', 'invoicing.tar.gz');
      mkdirSync(join(work, 'copies'));

      const server = await serve(original, ['--demo']);
      const key = (server.ready as { demo: { live_key: { key: string } } }).demo.live_key.key;
      const write = (name: string, n: number) =>
        apiCall(server.apiBaseUrl, key, '/customers', {
          method: 'POST',
          body: customer(name),
          idempotencyKey: `backup-${n}`,
        });
      const before = await write('Antes da Copia', 0);
      expect(before.status).toBe(201);

      // The copy is taken by the server (admin socket) while writes keep arriving.
      const during = Array.from({ length: 8 }, (_, n) => write(`Durante ${n}`, n + 1));
      const backup = await cliJson<{ file: string; bytes: number; database: string }>(
        ['backup', file],
        original,
      );
      expect((await Promise.all(during)).map((answer) => answer.status)).toEqual(Array(8).fill(201));
      expect(backup).toMatchObject({ file, database: expect.stringContaining('embedded PGlite') });
      expect(statSync(file).size).toBe(backup.bytes);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const after = await write('Depois da Copia', 100);
      expect(after.status).toBe(201);

      // Never under a running server's feet, never over a database unless told to.
      const busy = await runInProcess(['restore', file, '--json'], { ...EN, ...original });
      expect(busy.code).toBe(1);
      expect(JSON.parse(busy.stderr).error.message).toMatch(
        /in use by the server \(pid \d+\): stop it first/,
      );
      expect(await server.stop()).toBe(0);
      const occupied = await runInProcess(['restore', file], { ...EN, ...original });
      expect(occupied.code).toBe(1);
      expect(occupied.stderr).toContain('is not empty');
      const notACopy = await runInProcess(['restore', join(work, 'data', 'invoicing.lock')], {
        DATA_DIR: join(work, 'x'),
      });
      expect(notACopy.code).toBe(1);

      // Into a new directory: the data of the moment of the copy, through the API, with the same key.
      const restored = { DATA_DIR: join(work, 'restored') };
      const result = await cliJson<{ companies: number; moved_aside: string | null }>(
        ['restore', file],
        restored,
      );
      expect(result).toMatchObject({ companies: 1, moved_aside: null });
      // issue 30: the next step it prints starts the server on that DATA_DIR, not the usual one.
      const elsewhere = join(work, 'restored elsewhere');
      const text = await runInProcess(['restore', file], { ...EN, DATA_DIR: elsewhere });
      expect(text.code, text.stderr).toBe(0);
      expect(text.stdout).toContain(`Start the server on it: DATA_DIR='${elsewhere}' bin/invoicing serve\n`);
      const second = await serve(restored);
      expect(
        (await apiCall(second.apiBaseUrl, key, `/customers/${before.body.data.id}`)).body.data.name,
      ).toBe('Antes da Copia');
      expect((await apiCall(second.apiBaseUrl, key, `/customers/${after.body.data.id}`)).status).toBe(404);
      // Each write of the copy's moment is there whole or not at all, and lists agree with reads.
      const listed = await apiCall(second.apiBaseUrl, key, '/customers?per_page=100&search=Durante');
      for (const row of listed.body.data) {
        expect((await apiCall(second.apiBaseUrl, key, `/customers/${row.id}`)).body.data).toEqual(row);
      }
      expect(listed.body.pagination.total).toBe(listed.body.data.length);
      expect(await second.stop()).toBe(0);

      // With no server, backup opens the directory itself; --force keeps the replaced database aside.
      const again = join(work, 'copies', 'again.tar.gz');
      await commandJson(['backup', again], restored);
      const forced = await commandJson<{ moved_aside: string }>(['restore', again, '--force'], original);
      expect(existsSync(join(forced.moved_aside, 'PG_VERSION'))).toBe(true);
      expect(readdirSync(join(work, 'data'))).toContain('PG_VERSION');
      expect(readdirSync(forced.moved_aside)).not.toContain('invoicing.lock');
    },
    300_000,
  );

  it.runIf(testStorage() === 'postgres')(
    "PostgreSQL: the README's pg_dump / pg_restore recipe restores into a new database that serves the same data",
    async () => {
      const database = await createTestDatabase('postgres');
      cleanups.push(() => database.close());
      const url = database.url as string;
      const server = await serve({ DATABASE_URL: url }, ['--demo']);
      const key = (server.ready as { demo: { live_key: { key: string } } }).demo.live_key.key;
      const created = await apiCall(server.apiBaseUrl, key, '/customers', {
        method: 'POST',
        body: customer('Cliente do Dump'),
        idempotencyKey: 'pg-dump-1',
      });
      expect(created.status).toBe(201);
      const reads = [
        '/customers?per_page=5',
        `/customers/${created.body.data.id}`,
        '/invoices?per_page=5',
        '/products?per_page=5',
      ];
      const originals = await Promise.all(reads.map((path) => apiCall(server.apiBaseUrl, key, path)));

      // backup is for the embedded database only, and says what to use instead.
      const refused = await runInProcess(['backup', join(tmpdir(), 'never.tar.gz')], { DATABASE_URL: url });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('pg_dump');

      const work = await mkdtemp(join(tmpdir(), 'invoicing-pgdump-'));
      cleanups.push(() => rm(work, { recursive: true, force: true }));
      const dump = join(work, 'invoicing.dump');
      await run('pg_dump', ['--format=custom', '--no-owner', '--file', dump, url]);
      const copy = await createEmptyPostgresDatabase();
      cleanups.push(() => copy.drop());
      await run('pg_restore', ['--no-owner', '--exit-on-error', '--dbname', copy.url, dump]);

      const restored = await serve({ DATABASE_URL: copy.url });
      for (const [index, path] of reads.entries()) {
        const answer = await apiCall(restored.apiBaseUrl, key, path);
        expect(answer.status, path).toBe(200);
        expect(answer.body, path).toEqual(originals[index]?.body);
      }
      // The idempotency records came along: the same write is a replay, not a second customer.
      const replay = await apiCall(restored.apiBaseUrl, key, '/customers', {
        method: 'POST',
        body: customer('Cliente do Dump'),
        idempotencyKey: 'pg-dump-1',
      });
      expect(replay.body).toEqual(created.body);
    },
    300_000,
  );
});
