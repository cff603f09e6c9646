// Partner text never reaches the operator's terminal raw (issue 38, goal 3: "The CLI's text output
// shows control characters as visible escapes (its JSON output is already escaped)"): a customer
// named with ESC, CR, BEL and other controls, created over the API of a running server, then listed
// by the real bin/invoicing as a process (on PGlite through the admin socket).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiCall,
  type CliStorage,
  createCliStorage,
  PROCESS_TEST_TIMEOUT_MS,
  runCli,
  type ServeProcess,
  startServe,
} from '../helpers/cli.js';
import { testStorage } from '../helpers/database.js';

interface Demo {
  company: { id: number };
  live_key: { key: string };
}

/** A name that, printed raw, sets the window title, rings the bell and rewrites its own line. */
const HOSTILE = 'Loja \u001b]0;pwned\u0007Boa\rFAKE\u001b[2K\u009b31m\u202eFim';

// C0 (but line feed and tab), DEL, C1 and bidirectional overrides: none may be printed raw.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe(`CLI text output (${testStorage()})`, { timeout: PROCESS_TEST_TIMEOUT_MS }, () => {
  let storage: CliStorage;
  let server: ServeProcess;
  let env: Record<string, string>;
  let demo: Demo;

  beforeAll(async () => {
    storage = await createCliStorage();
    env = storage.env;
    server = await startServe(env, { args: ['--demo'] });
    demo = server.ready?.demo as Demo;
  });
  afterAll(async () => {
    await server?.stop();
    await storage?.close();
  });

  it('customers list shows ESC, CR, BEL and C1 controls of a partner-made name as visible escapes; --json is unchanged', async () => {
    const created = await apiCall(server.apiBaseUrl, demo.live_key.key, '/customers', {
      method: 'POST',
      body: { name: HOSTILE },
      idempotencyKey: 'terminal-text-1',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.name ?? created.body.data?.name, JSON.stringify(created.body)).toBe(HOSTILE);

    const company = String(demo.company.id);
    const text = await runCli(['customers', 'list', '--company', company], env);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).not.toMatch(RAW_CONTROL);
    expect(text.stdout).toContain('Loja \\x1b]0;pwned\\x07Boa\\rFAKE\\x1b[2K\\x9b31m\\u202eFim');
    // The table keeps one line per customer: the name did not break or rewrite it.
    expect(text.stdout.split('\n').filter((line) => line.includes('Loja'))).toHaveLength(1);

    const json = await runCli(['customers', 'list', '--company', company, '--json'], env);
    expect(json.code, json.stderr).toBe(0);
    // JSON escapes controls itself, and the value is the name as stored, character for character.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
    expect(json.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);
    const listed = JSON.parse(json.stdout) as { customers: { name: string }[] };
    expect(listed.customers.map((customer) => customer.name)).toContain(HOSTILE);
  });
});
