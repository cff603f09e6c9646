// A start that never loses keys: `serve` checks its ports and the whole configuration before it
// creates anything (no database, no demo company, no keys nobody sees), and says exactly what is
// wrong. A DATA_DIR is created only when it does not exist (loudly), never among other files.
// One refusal of each kind runs the real bin/invoicing (the port in use, a database that does not
// exist); the other variants run main() in this process, the same command line without a process.
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type CliStorage,
  createCliStorage,
  PROCESS_TEST_TIMEOUT_MS,
  runCli,
  runInProcess,
  startServe,
} from '../helpers/cli.js';
import { testStorage } from '../helpers/database.js';
import { TEST_DATABASE_URL } from '../helpers/services.js';

// The command line's texts asserted here are English: every command asks for English (Portuguese is
// the default, test/cli/language.unit.test.ts).
const EN = { INVOICING_LANG: 'en' };

async function occupiedPort(): Promise<{ port: number; server: Server }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return { port: typeof address === 'object' && address ? address.port : 0, server };
}

describe(`serve refuses a start that would fail, creating nothing (${testStorage()})`, {
  timeout: PROCESS_TEST_TIMEOUT_MS,
}, () => {
  let storage: CliStorage;
  let busy: { port: number; server: Server };

  beforeAll(async () => {
    storage = await createCliStorage({ migrated: false });
    busy = await occupiedPort();
  });
  afterAll(async () => {
    busy?.server.close();
    await storage?.close();
  });

  /** Nothing at all was created: no DATA_DIR, or a PostgreSQL database without a single table. */
  async function expectNothingCreated(): Promise<void> {
    if (storage.kind === 'pglite') {
      expect(existsSync(storage.env.DATA_DIR as string)).toBe(false);
      return;
    }
    const client = new pg.Client({ connectionString: storage.env.DATABASE_URL });
    await client.connect();
    try {
      const { rows } = await client.query(
        "select count(*)::int as n from information_schema.tables where table_schema in ('public', 'drizzle')",
      );
      expect(rows[0].n).toBe(0);
    } finally {
      await client.end();
    }
  }

  const serveArgs = () => (storage.kind === 'postgres' ? ['serve', '--demo'] : ['serve']);

  it('the API port in use: "port N is in use"', async () => {
    const result = await runCli(serveArgs(), { ...EN, ...storage.env, PORT: String(busy.port) });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      `error: port ${busy.port} is in use on 127.0.0.1 (PORT): stop what listens there or choose another PORT\n`,
    );
    await expectNothingCreated();
  });

  it('the operations port in use', async () => {
    const result = await runInProcess([...serveArgs(), '--json'], {
      ...EN,
      ...storage.env,
      OPS_PORT: String(busy.port),
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(JSON.parse(result.stderr)).toEqual({
      error: {
        kind: 'start',
        message: `port ${busy.port} is in use on 127.0.0.1 (OPS_PORT): stop what listens there or choose another OPS_PORT`,
        exit_status: 1,
      },
    });
    await expectNothingCreated();
  });

  it('issue 39, goal 8: a busy DOCS_PORT stops the start as DOCS_PORT = PORT does, so doc_url never leads to whatever listens there', async () => {
    const result = await runInProcess([...serveArgs(), '--json'], {
      ...EN,
      ...storage.env,
      DOCS_PORT: String(busy.port),
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(JSON.parse(result.stderr)).toEqual({
      error: {
        kind: 'start',
        message: `port ${busy.port} is in use on 127.0.0.1 (DOCS_PORT): stop what listens there or choose another DOCS_PORT, or DOCS_PORT=off (doc_url must never lead to whatever listens there)`,
        exit_status: 1,
      },
    });
    await expectNothingCreated();
  });

  it('a bad variable: says which and what it must be', async () => {
    const result = await runInProcess(serveArgs(), { ...EN, ...storage.env, LOG_LEVEL: 'verbose' });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'error: LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "verbose"\n',
    );
    const several = await runInProcess(serveArgs(), {
      ...EN,
      ...storage.env,
      TZ_NAME: 'Mars/Olympus',
      RATE_LIMIT_KEY_PER_DAY: '0',
    });
    expect(several.code).toBe(1);
    expect(several.stderr).toBe('error: RATE_LIMIT_KEY_PER_DAY must be a positive integer, got "0"\n');
    // issue 30: the docs on the API's port would answer every doc_url with a 404.
    const docs = await runInProcess(serveArgs(), { ...EN, ...storage.env, PORT: '3001', DOCS_PORT: '3001' });
    expect(docs.code).toBe(1);
    expect(docs.stderr).toMatch(/^error: DOCS_PORT must differ from PORT \(both 3001\)/);
    // In Portuguese, the operator's language by default: the whole line, problem included.
    const docsPt = await runInProcess(serveArgs(), { ...storage.env, PORT: '3001', DOCS_PORT: '3001' });
    expect(docsPt.code).toBe(1);
    expect(docsPt.stderr).toMatch(/^erro: DOCS_PORT tem de ser diferente de PORT \(ambos 3001\)/);
    const zone = await runInProcess(serveArgs(), { ...EN, ...storage.env, TZ_NAME: 'Mars/Olympus' });
    expect(zone.stderr).toBe('error: TZ_NAME is not a known time zone, got "Mars/Olympus"\n');
    await expectNothingCreated();
  });
});

describe.runIf(testStorage() === 'pglite')(
  'DATA_DIR is never created silently',
  { timeout: PROCESS_TEST_TIMEOUT_MS },
  () => {
    let dir: string;
    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'invoicing-start-'));
    });
    afterAll(() => rm(dir, { recursive: true, force: true }));
    let stop: (() => Promise<number | null>) | null = null;
    afterEach(async () => {
      await stop?.();
      stop = null;
    });

    it('a mistyped path (its parent does not exist) is refused', async () => {
      const dataDir = join(dir, 'srv', 'invocing', 'data');
      const result = await runInProcess(['serve'], { ...EN, DATA_DIR: dataDir });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(
        /^error: DATA_DIR .* does not exist, nor does its parent .*: is DATA_DIR mistyped\?/,
      );
      expect(existsSync(join(dir, 'srv'))).toBe(false);
    });

    it('a directory holding other files is refused and left as it was', async () => {
      const dataDir = join(dir, 'home');
      await mkdir(dataDir);
      await writeFile(join(dataDir, 'notes.txt'), 'not a database');
      const result = await runInProcess(['serve'], { ...EN, DATA_DIR: dataDir });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(
        /holds other files but no embedded database: refusing to create one there/,
      );
      expect(readdirSync(dataDir)).toEqual(['notes.txt']);
    });

    it('issue 39, goal 2: one database for the CLI: a command other than serve, migrate, demo and restore never creates one; it names the DATA_DIR it looked at and leaves nothing behind', async () => {
      const dataDir = join(dir, 'fresh-for-commands');
      const read = await runInProcess(['companies', 'list'], { ...EN, DATA_DIR: dataDir });
      expect(read.code).toBe(1);
      expect(read.stderr).toMatch(
        /^error: there is no embedded database in .*fresh-for-commands \(DATA_DIR does not exist\)/,
      );
      expect(existsSync(dataDir)).toBe(false);

      // A command that changes something, as a process, as the operator ran it in the runtime tree.
      const write = await runCli(['companies', 'create', '--name', 'Primeira'], { ...EN, DATA_DIR: dataDir });
      expect(write.code).toBe(1);
      expect(write.stdout).toBe('');
      expect(write.stderr).toBe(
        `error: there is no embedded database in ${dataDir} (DATA_DIR does not exist): is DATA_DIR right? This command never creates one. Point it at the server's: DATA_DIR=/path/of/the/server/data bin/invoicing ... (the server's start banner names its DATA_DIR), or DATABASE_URL=... when the server runs on PostgreSQL\n`,
      );
      expect(existsSync(dataDir)).toBe(false);
      for (const args of [
        ['keys', 'create', '--company', '1'],
        ['companies', 'enable-api', '1'],
        ['taxes', 'create', '--global', '--name', 'IVA', '--rate', '16'],
      ]) {
        const other = await runInProcess([...args, '--json'], { ...EN, DATA_DIR: dataDir });
        expect(other.code, args.join(' ')).toBe(1);
        expect(JSON.parse(other.stderr).error.message).toContain(`no embedded database in ${dataDir}`);
        expect(existsSync(dataDir)).toBe(false);
      }
      // An empty directory (a mount point, say) stays as it was: no database, no lock file.
      const empty = join(dir, 'empty-for-commands');
      await mkdir(empty);
      const inEmpty = await runInProcess(['companies', 'create', '--name', 'Segunda'], {
        ...EN,
        DATA_DIR: empty,
      });
      expect(inEmpty.code).toBe(1);
      expect(inEmpty.stderr).toContain(`no embedded database in ${empty} (DATA_DIR is empty)`);
      expect(readdirSync(empty)).toEqual([]);

      // migrate and demo may create it, loudly.
      const migrated = await runInProcess(['migrate'], { ...EN, DATA_DIR: dataDir });
      expect(migrated.code, migrated.stderr).toBe(0);
      expect(migrated.stderr).toContain(
        `!!! DATA_DIR ${dataDir} did not exist: created it with a NEW, EMPTY embedded database`,
      );
      const write2 = await runInProcess(['companies', 'create', '--name', 'Primeira', '--json'], {
        ...EN,
        DATA_DIR: dataDir,
      });
      expect(write2.code, write2.stderr).toBe(0);
      expect(write2.stderr).toBe('');
      const again = await runInProcess(['companies', 'list', '--json'], { ...EN, DATA_DIR: dataDir });
      expect(again.stderr).toBe('');
      expect(JSON.parse(again.stdout).companies).toHaveLength(1);
    });

    it('the first start of a new DATA_DIR creates it loudly; later starts reuse it quietly', async () => {
      const dataDir = join(dir, 'data');
      const first = await startServe({ ...EN, DATA_DIR: dataDir }, { args: ['--demo'] });
      stop = first.stop;
      expect(first.ready).toMatchObject({
        data_dir_created: true,
        data_dir: dataDir,
        demo: { company: { id: 1 } },
      });
      expect(first.stderr()).toContain(
        `!!! DATA_DIR ${dataDir} did not exist: created it with a NEW, EMPTY embedded database`,
      );
      expect(await first.stop()).toBe(0);

      const later = await startServe({ ...EN, DATA_DIR: dataDir }, { args: ['--demo'] });
      stop = later.stop;
      expect(later.ready).toMatchObject({ data_dir_created: false, demo: null });
      expect(later.stderr()).not.toContain('!!!');
    });
  },
);

describe.runIf(testStorage() === 'postgres')(
  'a database that does not exist is named',
  { timeout: PROCESS_TEST_TIMEOUT_MS },
  () => {
    it('issue 30: "the database does not exist" names it, never the password', async () => {
      const url = new URL(TEST_DATABASE_URL);
      url.password = 's3cret';
      url.pathname = '/nao_existe_issue30';
      for (const [args, run] of [
        [['companies', 'list'], runInProcess],
        [['serve'], runCli],
      ] as const) {
        const result = await run(args, { ...EN, DATABASE_URL: url.toString() });
        expect(result.code, args.join(' ')).toBe(1);
        expect(result.stderr).toBe(
          'error: database error: the database does not exist: "nao_existe_issue30" (create it, or fix DATABASE_URL) (run again with --debug for details)\n',
        );
        expect(result.stderr).not.toContain('s3cret');
      }
    });
  },
);
