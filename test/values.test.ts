// Issue 38, goal 4 "Dates as the calendar has them": years 0001 to 9999 are handled alike. Date.UTC
// read years 0 to 99 as 1900 to 1999, so 0050-03-01 was refused while 0100-03-01 was taken. Real
// HTTP, both storages: a draft's dates, the list's date filters and updated_since.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ListeningApp, startListeningApp } from './helpers/client-server.js';
import { createTenant, newIdempotencyKey, type Tenant } from './helpers/context.js';
import { testStorage } from './helpers/database.js';
import { createCustomer, createProduct } from './helpers/invoices.js';

describe(`dates of years 0001 to 9999 alike (${testStorage()})`, () => {
  let server: ListeningApp;
  let tenant: Tenant;
  let customerId: number;
  let productId: number;

  beforeAll(async () => {
    server = await startListeningApp();
    tenant = await createTenant(server.db);
    customerId = await createCustomer(server.app, tenant, 'Cliente Antigo');
    productId = await createProduct(server.app, server.db, tenant, { name: 'Serviço' });
  });
  afterAll(() => server?.close());

  const headers = () => ({ authorization: `Bearer ${tenant.key}` });
  async function draft(invoiceDate: string, dueDate: string) {
    const res = await fetch(`${server.baseUrl}/invoices`, {
      method: 'POST',
      headers: {
        ...headers(),
        'content-type': 'application/json',
        'idempotency-key': newIdempotencyKey('dates'),
      },
      body: JSON.stringify({
        customer_id: customerId,
        invoice_date: invoiceDate,
        due_date: dueDate,
        items: [{ product_id: productId, quantity: 1, price: 10 }],
      }),
    });
    return { status: res.status, body: await res.json() };
  }
  const list = async (query: string) => {
    const res = await fetch(`${server.baseUrl}/invoices?${query}`, { headers: headers() });
    return { status: res.status, body: await res.json() };
  };

  it('a draft dated in years 0001 to 0099 is taken and read back as sent, like 0100 and 9999', async () => {
    for (const [invoiceDate, dueDate] of [
      ['0001-01-01', '0001-12-31'],
      ['0050-03-01', '0099-12-31'],
      ['0004-02-29', '0004-02-29'],
      ['0100-03-01', '9999-12-31'],
    ]) {
      const created = await draft(invoiceDate!, dueDate!);
      expect(created.status, `${invoiceDate} ${JSON.stringify(created.body)}`).toBe(201);
      expect([created.body.data.invoice_date, created.body.data.due_date]).toEqual([invoiceDate, dueDate]);
      const read = await (
        await fetch(`${server.baseUrl}/invoices/${created.body.data.id}`, { headers: headers() })
      ).json();
      expect([read.data.invoice_date, read.data.due_date]).toEqual([invoiceDate, dueDate]);
    }
  });

  it('the calendar still refuses what does not exist, in every year', async () => {
    for (const date of ['0000-01-01', '0001-02-29', '0100-02-29', '0050-13-01', '0050-04-31', '0099-00-10']) {
      const refused = await draft(date, '2026-01-01');
      expect(refused.status, date).toBe(422);
      expect(Object.keys(refused.body.error.errors), date).toContain('invoice_date');
    }
  });

  it('date_from, date_to and updated_since take years 0001 to 0099 too', async () => {
    const early = await list('date_from=0001-01-01&date_to=0099-12-31&sort=invoice_date&order=asc');
    expect(early.status, JSON.stringify(early.body)).toBe(200);
    expect(early.body.data.map((invoice: { invoice_date: string }) => invoice.invoice_date)).toEqual([
      '0001-01-01',
      '0004-02-29',
      '0050-03-01',
    ]);
    const since = await list('updated_since=0001-01-01');
    expect(since.status).toBe(200);
    expect(since.body.pagination.total).toBe(4);
    expect((await list('date_from=0000-12-31')).status).toBe(422);
  });
});
