// The MCP server's Streamable HTTP sessions are bounded (issue 38, goal 3: "The MCP HTTP server caps
// sessions per key and per company, evicting a key's own oldest session first, and idles out a
// session that never called a tool within minutes"): `partner-mcp --http` as a real process,
// reached with the official MCP SDK's client, in front of a real API server on the current storage.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/operations/api-keys.js';
import { createCompany, setPartnerApi } from '../../src/operations/companies.js';
import { type ListeningApp, startListeningApp } from '../helpers/client-server.js';
import { asOperator } from '../helpers/context.js';
import {
  connectHttp,
  type HttpConnection,
  type HttpMcpProcess,
  startHttpMcp,
  Transcript,
} from '../helpers/mcp.js';

/** Whether a session still answers (an evicted or idled-out one is a 404 to the SDK's client). */
async function alive(connection: HttpConnection): Promise<boolean> {
  return connection.client.listTools().then(
    () => true,
    () => false,
  );
}

describe('MCP server over HTTP: sessions bounded per key, per company and in all', () => {
  const transcript = new Transcript();
  let server: ListeningApp;
  /** --max-sessions 5 --sessions-per-company 3 --sessions-per-key 2 */
  let capped: HttpMcpProcess;
  /** --unused-session-timeout 10 */
  let idling: HttpMcpProcess;
  const open: HttpConnection[] = [];
  const keys = { a1: '', a2: '', b1: '' };

  async function keyOf(companyId: number): Promise<string> {
    const { key } = await createApiKey(asOperator(server.db), {
      companyId,
      mode: 'test',
      scopes: ['all'],
      days: 30,
    });
    return key;
  }
  async function connect(mcp: HttpMcpProcess, key: string): Promise<HttpConnection> {
    const connection = await connectHttp(mcp.url, key);
    open.push(connection);
    return connection;
  }

  beforeAll(async () => {
    // Every session's initialize asks the API /ping with its key: room for this file's few dozen.
    server = await startListeningApp({
      RATE_LIMIT_KEY_PER_MINUTE: '1000',
      RATE_LIMIT_COMPANY_PER_MINUTE: '2000',
    });
    const [a, b] = [
      await createCompany(server.db, { name: 'Ferragens Xai-Xai, Lda' }),
      await createCompany(server.db, { name: 'Padaria Chimoio, Lda' }),
    ];
    await setPartnerApi(server.db, a.id, true);
    await setPartnerApi(server.db, b.id, true);
    keys.a1 = await keyOf(a.id);
    keys.a2 = await keyOf(a.id);
    keys.b1 = await keyOf(b.id);
    [capped, idling] = await Promise.all([
      startHttpMcp(
        {
          baseUrl: server.baseUrl,
          args: ['--max-sessions', '5', '--sessions-per-company', '3', '--sessions-per-key', '2'],
        },
        transcript,
      ),
      startHttpMcp({ baseUrl: server.baseUrl, args: ['--unused-session-timeout=10'] }, transcript),
    ]);
  });
  afterAll(async () => {
    for (const connection of open) await connection.close().catch(() => {});
    await capped?.stop();
    await idling?.stop();
    await server?.close();
  });

  it("one company's key never makes another company's initialize answer 503: past a bound its own oldest session goes first", async () => {
    // A key over its limit (2) loses its own oldest session.
    const a1First = await connect(capped, keys.a1);
    const a1Second = await connect(capped, keys.a1);
    const a1Third = await connect(capped, keys.a1);
    expect(await alive(a1First)).toBe(false);
    expect(await alive(a1Second)).toBe(true);
    expect(await alive(a1Third)).toBe(true);

    // The company's limit (3): another key of the same company loses its own oldest session first,
    // never the first key's.
    const a2First = await connect(capped, keys.a2);
    const a2Second = await connect(capped, keys.a2);
    expect(await alive(a2First)).toBe(false);
    expect([await alive(a1Second), await alive(a1Third), await alive(a2Second)]).toEqual([true, true, true]);

    // One key opening session after session, as a client that never closes them would.
    const flood: HttpConnection[] = [];
    for (let i = 0; i < 8; i++) flood.push(await connect(capped, keys.a1));
    expect(await alive(flood.at(-1)!)).toBe(true);
    expect(await alive(flood.at(-2)!)).toBe(true);
    expect(await alive(flood[0]!)).toBe(false);
    // ...and the other key of the company keeps its session all along.
    expect(await alive(a2Second)).toBe(true);

    // Another company still gets in, every time; on the full server (5) it too replaces its own oldest.
    const b = [await connect(capped, keys.b1), await connect(capped, keys.b1)];
    expect([await alive(b[0]!), await alive(b[1]!)]).toEqual([true, true]);
    const bThird = await connect(capped, keys.b1);
    expect([await alive(b[0]!), await alive(b[1]!), await alive(bThird)]).toEqual([false, true, true]);
    expect(capped.output()).toContain("session closed: the key's oldest, past its limit");
    expect(capped.output()).not.toMatch(/svc_sk_/);
  });

  it('closes a session that called no tool within its bound; one that called a tool stays', async () => {
    const working = await connect(idling, keys.b1);
    const result = await working.client.callTool({ name: 'who_am_i', arguments: {} });
    expect(result.isError).toBeFalsy();
    const unused = await connect(idling, keys.b1);
    // Asking for the tool list or pinging is no tool call: it does not keep the session open.
    const deadline = Date.now() + 60_000;
    let closed = false;
    while (!closed && Date.now() < deadline) {
      closed = !(await alive(unused));
      if (!closed) await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(closed).toBe(true);
    expect(await alive(working)).toBe(true);
    expect(idling.output()).toContain('no tool called in 10 s');
  });
});
