// One attempt against a real receiver: 2xx only is success, redirects are not followed, the
// answer is read up to the cap, the timeout ends a silent receiver, unsafe addresses are refused
// when connecting. And the configured retry schedule.
import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ConfigError,
  DEFAULT_WEBHOOK_RETRY_SCHEDULE,
  loadConfig,
  parseRetrySchedule,
} from '../../src/config.js';
import { maxAttempts, retryDelay, scheduleSpan } from '../../src/webhooks/schedule.js';
import { sendAttempt } from '../../src/webhooks/sender.js';
import { type Receiver, startReceiver } from '../helpers/webhook-receiver.js';

const policy = { allowHttp: true, allowPrivate: false };

describe('webhook attempts', () => {
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(() => receiver.close());

  it('succeeds on 2xx and sends the headers and body as given', async () => {
    receiver.on('/ok', () => ({ status: 202, body: 'recebido' }));
    const result = await sendAttempt(receiver.url('/ok'), { 'webhook-id': 'evt_1' }, '{"a":"ç"}', { policy });
    expect(result).toMatchObject({
      succeeded: true,
      statusCode: 202,
      error: null,
      responseExcerpt: 'recebido',
    });
    const [request] = receiver.at('/ok');
    expect(request?.headers['webhook-id']).toBe('evt_1');
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.body).toBe('{"a":"ç"}');
  });

  it('does not follow a redirect: a 3xx is a failure and the target is never called', async () => {
    receiver.on('/moved', () => ({ status: 302, headers: { location: receiver.url('/target') } }));
    const result = await sendAttempt(receiver.url('/moved'), {}, '{}', { policy });
    expect(result).toMatchObject({ succeeded: false, statusCode: 302 });
    expect(result.error).toMatch(/redirects are not followed/);
    expect(receiver.at('/target')).toHaveLength(0);
  });

  it('ends an attempt at its timeout', async () => {
    receiver.on('/silent', () => ({ hang: true }));
    const result = await sendAttempt(receiver.url('/silent'), {}, '{}', { policy, timeoutMs: 300 });
    expect(result).toMatchObject({ succeeded: false, statusCode: null, error: 'timeout after 300 ms' });
    expect(result.latencyMs).toBeGreaterThanOrEqual(250);
  });

  it('reads at most the cap of an endless answer', async () => {
    const endless = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = 'x'.repeat(16 * 1024);
      const pump = () => {
        while (res.write(chunk)) {
          // keep writing until the socket pushes back
        }
      };
      res.on('drain', pump);
      res.on('error', () => {});
      pump();
    });
    await new Promise<void>((resolve) => endless.listen(0, '127.0.0.1', () => resolve()));
    const address = endless.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    try {
      const result = await sendAttempt(`http://127.0.0.1:${port}/`, {}, '{}', { policy, timeoutMs: 5000 });
      expect(result).toMatchObject({ succeeded: true, statusCode: 200 });
      expect(result.latencyMs).toBeLessThan(5000);
      expect(result.responseExcerpt).toHaveLength(1024);
    } finally {
      endless.closeAllConnections();
      endless.close();
    }
  });

  it('refuses to connect where the policy does not allow', async () => {
    const refused = await sendAttempt(receiver.url('/ok'), {}, '{}', {
      policy: { allowHttp: false, allowPrivate: false },
    });
    expect(refused.succeeded).toBe(false);
    expect(refused.error).toMatch(/^refused: .*loopback/);
    const byName = await sendAttempt(`http://localhost:${receiver.port}/ok`, {}, '{}', {
      policy: { allowHttp: false, allowPrivate: false },
    });
    expect(byName.error).toMatch(/^refused: .*loopback/);
  });

  it('reports a receiver that is not listening', async () => {
    const closed = await startReceiver();
    const url = closed.url('/gone');
    await closed.close();
    const result = await sendAttempt(url, {}, '{}', { policy });
    expect(result).toMatchObject({ succeeded: false, statusCode: null, error: 'connection refused' });
  });
});

describe('webhook retry schedule', () => {
  it('defaults to more than three days in 11 attempts', () => {
    const schedule = loadConfig({}).webhooks.retrySchedule;
    expect(schedule).toEqual(parseRetrySchedule(DEFAULT_WEBHOOK_RETRY_SCHEDULE));
    expect(maxAttempts(schedule)).toBe(11);
    expect(scheduleSpan(schedule)).toBeGreaterThanOrEqual(3 * 24 * 3_600_000);
  });

  it('reads WEBHOOK_RETRY_SCHEDULE and refuses a bad one', () => {
    expect(loadConfig({ WEBHOOK_RETRY_SCHEDULE: '500ms, 2s,1m,1h,1d' }).webhooks.retrySchedule).toEqual([
      500, 2000, 60_000, 3_600_000, 86_400_000,
    ]);
    for (const bad of ['5', '5x', '0s', '1s,,2s', '-1s', '31d']) {
      expect(() => loadConfig({ WEBHOOK_RETRY_SCHEDULE: bad }), bad).toThrow(ConfigError);
    }
    expect(() => loadConfig({ WEBHOOK_ALLOW_HTTP: 'yes' })).toThrow(/WEBHOOK_ALLOW_HTTP/);
    expect(loadConfig({ WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: '1' }).webhooks).toMatchObject({
      allowHttp: true,
      allowPrivate: true,
    });
  });

  it('stretches each delay by 0 to 20 % and ends after the last entry', () => {
    const schedule = [1000, 60_000];
    expect(retryDelay(schedule, 1, () => 0)).toBe(1000);
    expect(retryDelay(schedule, 1, () => 0.999)).toBe(1200);
    expect(retryDelay(schedule, 2, () => 0.5)).toBe(66_000);
    expect(retryDelay(schedule, 3)).toBeNull();
  });
});
