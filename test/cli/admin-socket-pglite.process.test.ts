// The admin socket never lives in a shared directory, and a command trusts only the service's own
// (issue 38, goal 3: "The admin socket never lives in a shared directory: /run/invoicing (systemd
// RuntimeDirectory=) or a private directory, or the start refuses with a clear message. The CLI
// checks the socket's owner before trusting it"). The real bin/invoicing as processes; the socket
// exists only on the embedded database, so this file runs in the pglite project.
import { createHash } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROCESS_TEST_TIMEOUT_MS, runCli, type ServeProcess, startServe } from '../helpers/cli.js';
import { migratedDataDir, testStorage } from '../helpers/database.js';

const EN = { INVOICING_LANG: 'en' };

describe.runIf(testStorage() === 'pglite')('the admin socket', { timeout: PROCESS_TEST_TIMEOUT_MS }, () => {
  let work: string;
  /** A DATA_DIR whose admin.sock would be longer than a unix socket path may be. */
  let deepDataDir: string;
  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'admin-socket-'));
    const deep = join(work, 'a-rather-long-folder-name-for-the-books'.repeat(2), 'of-the-company');
    mkdirSync(deep, { recursive: true, mode: 0o700 });
    deepDataDir = join(deep, 'data');
    expect(Buffer.byteLength(join(deepDataDir, 'admin.sock'))).toBeGreaterThan(107);
    await migratedDataDir(deepDataDir);
  });
  afterAll(async () => {
    if (work) await rm(work, { recursive: true, force: true });
  });

  const oldTmpSocket = () =>
    join(
      tmpdir(),
      `invoicing-${createHash('sha256').update(resolve(deepDataDir)).digest('hex').slice(0, 16)}.sock`,
    );

  it('a DATA_DIR too deep for it and no private runtime directory: serve refuses, saying why; nothing in /tmp', async () => {
    // (English asked for: the refusal is asserted in English)
    const refused = await runCli(['serve'], { ...EN, DATA_DIR: deepDataDir });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/too deep for the admin socket/);
    expect(refused.stderr).toMatch(/RUNTIME_DIRECTORY \(systemd: RuntimeDirectory=invoicing\)/);
    expect(existsSync(oldTmpSocket())).toBe(false);
    // A runtime directory others may write to is no place for it either.
    const shared = join(work, 'shared');
    mkdirSync(shared);
    chmodSync(shared, 0o1777);
    const refusedShared = await runCli(['serve'], {
      ...EN,
      DATA_DIR: deepDataDir,
      RUNTIME_DIRECTORY: shared,
    });
    expect(refusedShared.code).toBe(1);
    expect(refusedShared.stderr).toMatch(/too deep for the admin socket/);
  });

  it("in $RUNTIME_DIRECTORY (systemd's RuntimeDirectory=) for a deep DATA_DIR; commands find it without that variable", async () => {
    const runtime = join(work, 'run');
    mkdirSync(runtime, { mode: 0o700 });
    let server: ServeProcess | undefined;
    try {
      server = await startServe({ DATA_DIR: deepDataDir, RUNTIME_DIRECTORY: runtime });
      const socket = server.ready?.admin_socket as string;
      expect(dirname(socket)).toBe(runtime);
      expect(existsSync(oldTmpSocket())).toBe(false);
      // The server holds DATA_DIR: a command succeeds only through its socket.
      const created = await runCli(['companies', 'create', '--name', 'Pelo socket', '--json'], {
        DATA_DIR: deepDataDir,
      });
      expect(created.code, created.stderr).toBe(0);
      expect(JSON.parse(created.stdout).name).toBe('Pelo socket');
    } finally {
      await server?.stop();
    }
    expect(existsSync(join(deepDataDir, 'admin-socket.path'))).toBe(false);
  });

  it("a command refuses a socket that is not the service's own (another user's, or open to others), sending it nothing", async () => {
    const dataDir = join(work, 'short');
    await migratedDataDir(dataDir);
    const socket = join(dataDir, 'admin.sock');
    let requests = 0;
    // Someone else's server, answering every operation with a fake success.
    const fake: Server = createServer((req, res) => {
      requests += 1;
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ result: { id: 1, revoked: true } }));
    });
    await new Promise<void>((done) => fake.listen(socket, done));
    try {
      const revoke = () => runCli(['keys', 'revoke', '1', '--json'], { ...EN, DATA_DIR: dataDir });

      chmodSync(socket, 0o666);
      const open = await revoke();
      expect(open.code).toBe(1);
      expect(open.stderr).toMatch(/refusing the admin socket .*mode is 666/);

      chmodSync(socket, 0o600);
      chownSync(socket, 65534, 65534);
      const foreign = await revoke();
      expect(foreign.code).toBe(1);
      expect(foreign.stderr).toMatch(/refusing the admin socket .*belongs to user id 65534/);
      expect(requests).toBe(0);

      // The same socket, the service's user's and private: trusted (the checks are what refused).
      chownSync(socket, process.getuid?.() ?? 0, process.getgid?.() ?? 0);
      const trusted = await revoke();
      expect(trusted.code, trusted.stderr).toBe(0);
      expect(requests).toBe(1);
    } finally {
      await new Promise<void>((done) => fake.close(() => done()));
    }
  });
});
