// Headers too large: the framework's 431, with Connection: close, so that a keep-alive client
// opens a new connection for its next request instead of meeting ECONNRESET on the closed one.
import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_PREFIX } from '../../src/app.js';
import { createTenant, startTestApp, type Tenant, type TestContext } from '../helpers/context.js';
import { testStorage } from '../helpers/database.js';

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

describe(`431 closes the connection (${testStorage()})`, () => {
  let ctx: TestContext;
  let tenant: Tenant;
  let port: number;
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });

  beforeAll(async () => {
    ctx = await startTestApp();
    tenant = await createTenant(ctx.db);
    await ctx.app.listen({ port: 0, host: '127.0.0.1' });
    port = (ctx.app.server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    agent.destroy();
    await ctx.close();
  });

  function send(headers: Record<string, string>): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const req = httpRequest(
        { host: '127.0.0.1', port, path: `${API_PREFIX}/ping`, agent, headers },
        (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (chunk) => {
            body += chunk;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
        },
      );
      req.on('error', reject);
      req.end();
    });
  }

  it('answers 431 with Connection: close, and the next request on the same agent works', async () => {
    const auth = { authorization: `Bearer ${tenant.key}` };
    expect((await send(auth)).status).toBe(200);
    expect((await send(auth)).status).toBe(200); // the connection is kept alive and reused

    const tooLarge = await send({ ...auth, 'x-padding': 'x'.repeat(20_000) });
    expect(tooLarge.status).toBe(431);
    expect(tooLarge.headers.connection).toBe('close');
    expect(tooLarge.headers['x-request-id']).toMatch(/^req_/);
    expect(JSON.parse(tooLarge.body)).toEqual({
      statusCode: 431,
      error: 'Request Header Fields Too Large',
      message: 'Exceeded maximum allowed HTTP header size',
    });

    for (let i = 0; i < 3; i++) expect((await send(auth)).status).toBe(200);
  });
});
