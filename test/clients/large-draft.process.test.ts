// A 200-line draft through the TypeScript client and the MCP server (issue 30): answered
// compressed and streamed (about 40 KB), it must reach the caller whole, with its id. It once
// came back `Content-Length: 0`: the invoice was created and the partner never learnt its id.
// PHP and Python do the same in their own suites (test:clients).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PartnerApi } from '../../clients/typescript/src/index.js';
import { type ListeningApp, RecordingProxy, startListeningApp } from '../helpers/client-server.js';
import { createTenant, GENEROUS_LIMITS, type Tenant } from '../helpers/context.js';
import { callOk, connectStdio, type McpConnection, Transcript } from '../helpers/mcp.js';

describe('a 200-line draft reaches the official TypeScript client and the MCP server whole', () => {
  const transcript = new Transcript();
  let server: ListeningApp;
  let proxy: RecordingProxy;
  let tenant: Tenant;
  let client: PartnerApi;
  let customerId: number;
  let productId: number;
  let mcp: McpConnection;

  beforeAll(async () => {
    server = await startListeningApp(GENEROUS_LIMITS);
    proxy = await RecordingProxy.start(server.origin);
    tenant = await createTenant(server.db, { name: 'Armazém das 200 Linhas, Lda' });
    // The client as partners make it: the platform's fetch, which asks for compression.
    client = new PartnerApi({ apiKey: tenant.key, baseUrl: proxy.baseUrl });
    customerId = (await client.customers.create({ name: 'Loja Grossista de Chimoio' })).id;
    productId = (
      await client.products.create({
        name: 'Parafuso M8',
        type: 'GOODS',
        inventory: 'INVENTORY',
        price: '1.00',
      })
    ).id;
    mcp = await connectStdio(
      { key: tenant.key, baseUrl: proxy.baseUrl, args: ['--allow-writes'] },
      transcript,
    );
  });

  afterAll(async () => {
    await mcp?.close();
    await proxy?.close();
    await server?.close();
  });

  const items = () =>
    Array.from({ length: 200 }, () => ({ product_id: productId, quantity: 1, price: '1.00' }));

  it('TypeScript client: invoices.create answers the draft with its id and 200 lines', async () => {
    const before = proxy.of('POST').length;
    const invoice = await client.invoices.create({
      customer_id: customerId,
      invoice_date: '2026-11-27',
      items: items(),
    });
    expect(invoice.id).toBeGreaterThan(0);
    expect(invoice.items).toHaveLength(200);
    expect(invoice.grand_total).toBe('200.00');
    const [sent] = proxy.of('POST').slice(before);
    expect(sent?.headers['accept-encoding']).toMatch(/gzip|br/);
    expect(sent?.upstreamEncoding).toMatch(/^(gzip|br)$/);
    expect(await client.invoices.get(invoice.id)).toEqual(invoice);
  });

  it('MCP server: create_draft_invoice answers the draft with its id and 200 lines', async () => {
    const result = await callOk(
      mcp,
      'create_draft_invoice',
      {
        customer_id: customerId,
        invoice_date: '2026-11-27',
        items: items(),
        idempotency_key: 'order-200-lines',
      },
      transcript,
    );
    const invoice = result.invoice as { id: number; items: unknown[] };
    expect(invoice.id).toBeGreaterThan(0);
    expect(invoice.items).toHaveLength(200);
    expect((await client.invoices.get(invoice.id)).items).toHaveLength(200);
  });
});
