// A real server process killed with SIGKILL after the event committed and while its delivery is
// in flight: the restarted server delivers it (at least once, same webhook-id). The operator's
// commands run as they do in production: the real executable for `webhooks create`, and through
// the server's admin socket on the embedded database.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliJson, runInProcess } from '../helpers/cli.js';
import { createEmptyPostgresDatabase, migratedDataDir, testStorage } from '../helpers/database.js';
import { type ServerProcess, startServerProcess } from '../helpers/server-process.js';
import { type Receiver, startReceiver, verified } from '../helpers/webhook-receiver.js';

/**
 * Every wait below is for a condition, polled, and bounded far above what it takes on a quiet
 * machine (a second or two): a loaded machine makes the test slower, never wrong.
 */
const PATIENCE_MS = 90_000;

describe('webhooks across a SIGKILL of the server', () => {
  const servers: ServerProcess[] = [];
  const cleanups: (() => Promise<void> | void)[] = [];
  let receiver: Receiver;

  afterAll(async () => {
    for (const server of servers) await server.kill('SIGKILL');
    await receiver?.close();
    for (const cleanup of cleanups) await cleanup();
  });

  // biome-ignore lint/suspicious/noExplicitAny: JSON of the command line
  async function cli(args: string[], env: Record<string, string>): Promise<any> {
    const result = await runInProcess([...args, '--json'], env);
    if (result.code !== 0) throw new Error(`${args.join(' ')}: ${result.stderr}`);
    return JSON.parse(result.stdout);
  }

  it('delivers an event whose attempt was cut by the crash after the restart', {
    timeout: 5 * PATIENCE_MS,
  }, async () => {
    const storage: Record<string, string> = {};
    if (testStorage() === 'pglite') {
      const dir = mkdtempSync(join(tmpdir(), 'webhooks-crash-'));
      cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
      storage.DATA_DIR = await migratedDataDir(join(dir, 'data'));
    } else {
      const empty = await createEmptyPostgresDatabase();
      cleanups.push(() => empty.drop());
      storage.DATABASE_URL = empty.url;
    }
    const env = { ...storage, WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_RETRY_SCHEDULE: '1s' };
    receiver = await startReceiver();
    // The first request never gets an answer: the server dies while waiting for it.
    receiver.on('/crash', (n) => (n === 0 ? { hang: true } : { status: 200 }));

    // PGlite: the quick start's demo company and its printed key; PostgreSQL: a company made below.
    const first = await startServerProcess(env, undefined, testStorage() === 'pglite' ? ['--demo'] : []);
    servers.push(first);
    let companyId: number;
    let key: string;
    if (testStorage() === 'pglite') {
      key = /svc_sk_live_[A-Za-z0-9]+/.exec(first.output())?.[0] as string;
      companyId = (await cli(['companies', 'list'], env)).companies[0].id;
    } else {
      companyId = (await cli(['companies', 'create', '--name', 'Empresa do Crash'], env)).id;
      await cli(['companies', 'enable-api', String(companyId)], env);
      key = (await cli(['keys', 'create', '--company', String(companyId)], env)).key;
    }
    const endpoint = await cliJson<{ id: number; secret: string; url: string }>(
      [
        'webhooks',
        'create',
        '--company',
        String(companyId),
        '--url',
        receiver.url('/crash'),
        '--events',
        'customer.created',
      ],
      env,
    );
    expect(endpoint.secret).toMatch(/^whsec_/);

    const res = await fetch(`${first.baseUrl}/customers`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        'idempotency-key': 'webhooks-crash-1',
      },
      body: JSON.stringify({ name: 'Cliente do Crash' }),
    });
    expect(res.status).toBe(201);
    const customer = (await res.json()).data;

    await receiver.waitFor((requests) => requests.length >= 1, PATIENCE_MS, 'the first attempt');
    await first.kill('SIGKILL');

    const second = await startServerProcess(env);
    servers.push(second);
    // However the restarted server learns that the attempt is orphaned (a row lock gone with the
    // dead connection, or a lease that runs out), it delivers again: waited for, not timed.
    await receiver.waitFor((requests) => requests.length >= 2, PATIENCE_MS, 'the delivery after the restart');
    const [cut, delivered] = receiver.at('/crash');
    expect(delivered?.headers['webhook-id']).toBe(cut?.headers['webhook-id']);
    const event = verified(delivered as NonNullable<typeof delivered>, endpoint.secret);
    expect(event).toMatchObject({ type: 'customer.created', data: customer });

    // The log shows the delivery; resend sends it once more, with the same id.
    // The receiver has answered; the server writes the outcome just after.
    const deadline = Date.now() + PATIENCE_MS;
    let log = await cli(['webhooks', 'deliveries', String(endpoint.id)], env);
    while (log.deliveries[0]?.status !== 'succeeded' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      log = await cli(['webhooks', 'deliveries', String(endpoint.id)], env);
    }
    expect(log.deliveries[0]).toMatchObject({ event_id: event.id, status: 'succeeded', status_code: 200 });
    await cli(['webhooks', 'resend', event.id], env);
    await receiver.waitFor((requests) => requests.length >= 3, PATIENCE_MS, 'the resent event');
    expect(receiver.at('/crash')[2]?.headers['webhook-id']).toBe(event.id);
    const listed = await cli(['webhooks', 'list', '--company', String(companyId)], env);
    expect(listed.endpoints).toEqual([expect.objectContaining({ id: endpoint.id, enabled: true })]);
    expect(JSON.stringify(listed)).not.toContain(endpoint.secret);
  });
});
