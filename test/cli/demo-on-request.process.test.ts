// decisions.md, "Demo data": the demo company is created only where a person asked for it (the
// quick start's npm start, serve --demo, bin/invoicing demo); never by the runtime tree, the image,
// the systemd unit (all run a plain `serve`) or a server started with NODE_ENV=production, whose
// first start prints how to create a company and a key instead. Through the real bin/invoicing.
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import {
  apiCall,
  type CliStorage,
  commandJson,
  createCliStorage,
  PROCESS_TEST_TIMEOUT_MS,
  type ServeProcess,
  startServe,
} from '../helpers/cli.js';
import { testStorage } from '../helpers/database.js';

// The command line's texts asserted here are English: every command asks for English (Portuguese is
// the default, test/cli/language.unit.test.ts).
const EN = { INVOICING_LANG: 'en' };

const RULE = "decisions.md Demo data: 'created only where a person asked for it'";
const PACKAGE = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  scripts: Record<string, string>;
};

describe(`the demo company only when asked for (${testStorage()})`, {
  timeout: PROCESS_TEST_TIMEOUT_MS,
}, () => {
  const started: { storage: CliStorage; server?: ServeProcess }[] = [];
  afterEach(async () => {
    for (const { storage, server } of started.splice(0)) {
      await server?.stop();
      await storage.close();
    }
  });

  /**
   * A first start on a database with no company: a new one (PGlite: a DATA_DIR that does not exist
   * yet), or on PGlite `migrated`, a copy of a migrated one (the cluster's creation is
   * test/cli/start.process.test.ts's).
   */
  async function firstStart(
    env: Record<string, string>,
    args: string[],
    options: { migrated?: boolean } = {},
  ): Promise<ServeProcess> {
    const storage = await createCliStorage({
      migrated: options.migrated === true && testStorage() === 'pglite',
    });
    const entry: { storage: CliStorage; server?: ServeProcess } = { storage };
    started.push(entry);
    entry.server = await startServe({ ...EN, ...storage.env, ...env }, { json: false, args });
    return entry.server;
  }

  async function companiesOf(server: ServeProcess): Promise<unknown[]> {
    const storage = started.find((entry) => entry.server === server)?.storage as CliStorage;
    // Through the running server's socket, from this process (the command line's own process is
    // tested in test/cli/commands.process.test.ts).
    return (await commandJson<{ companies: unknown[] }>(['companies', 'list'], storage.env)).companies;
  }

  function expectHowToCreate(banner: string) {
    expect(banner).toContain('No company yet. To create one and its key:');
    expect(banner).toContain('bin/invoicing companies create --name');
    expect(banner).toContain('bin/invoicing companies enable-api ID');
    expect(banner).toContain('bin/invoicing keys create --company ID');
    expect(banner).not.toContain('svc_sk_');
  }

  it(`${RULE}: a plain serve (what the runtime tree, the image and the systemd unit run) creates no company`, async () => {
    const server = await firstStart({}, []);
    expectHowToCreate(server.stdout());
    // issue 39, goal 2: the banner names the database the server uses (never a password), so that
    // an operator's commands can be pointed at it.
    const storage = started.at(-1)?.storage as CliStorage;
    if (storage.kind === 'pglite') {
      expect(server.stdout()).toContain(`  Storage: embedded PGlite, DATA_DIR=${storage.env.DATA_DIR}`);
    } else {
      const url = new URL(storage.env.DATABASE_URL as string);
      expect(server.stdout()).toContain(
        `  Storage: PostgreSQL ${url.hostname}:${url.port || 5432}${url.pathname} (DATABASE_URL)`,
      );
    }
    expect(await companiesOf(server)).toEqual([]);
    // The first start's warning about a new database is printed once, not once more in the banner.
    const everything = server.stdout() + server.stderr();
    expect(everything.split('NEW, EMPTY').length - 1).toBe(testStorage() === 'pglite' ? 1 : 0);
  });

  it(`${RULE}: never with NODE_ENV=production, even with --demo (or npm start)`, async () => {
    const server = await firstStart({ NODE_ENV: 'production' }, ['--demo'], { migrated: true });
    expectHowToCreate(server.stdout());
    expect(server.stdout()).toContain('NODE_ENV=production: --demo ignored');
    expect(await companiesOf(server)).toEqual([]);
  });

  it(`${RULE}: the quick start (npm start, as package.json runs it) makes the demo and prints a working curl`, async () => {
    const [program, script, command, ...args] = (PACKAGE.scripts.start as string).split(' ');
    expect([program, script, command]).toEqual(['node', 'bin/invoicing', 'serve']);
    const server = await firstStart({}, args, { migrated: true });
    const banner = server.stdout();
    expect(banner).toContain('First start: demo company');
    const curl = /curl -H "Authorization: Bearer (svc_sk_live_[^"]+)" (\S+)/.exec(banner);
    expect(curl?.[2]).toBe(`${server.apiBaseUrl}/ping`);
    const ping = await apiCall(server.apiBaseUrl, curl?.[1] as string, '/ping');
    expect(ping.status).toBe(200);
    expect(await companiesOf(server)).toHaveLength(1);
  });
});
