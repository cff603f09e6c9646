// POST /invoices by one client, one request after the other, each with a fresh Idempotency-Key:
// 20 lines and 200 lines (the maximum). The bench's drafts are deleted afterwards so the data
// set stays as generated.

import { percentile } from '../../scripts/lib/stats.js';
import { GOALS } from '../goals.js';
import { timedRequest } from '../lib/http.js';
import { queryRows, withClient } from '../lib/postgres.js';
import { fmt } from '../report.js';
import { API_PREFIX, type BenchContext, bearer } from './context.js';

interface Catalogue {
  customers: number[];
  products: { id: number; price: string; tax_id: number | null }[];
}

async function catalogue(context: BenchContext): Promise<Catalogue> {
  const { url, mainCompany } = context.dataset;
  const customers = await queryRows<{ id: number }>(
    url,
    'select id from customers where company_id = $1 order by random() limit 1000',
    [mainCompany],
  );
  const products = await queryRows<{ id: number; price: string; tax_id: number | null }>(
    url,
    'select id, price::text, tax_id from products where company_id = $1 and price is not null order by random() limit 2000',
    [mainCompany],
  );
  return { customers: customers.map((row) => row.id), products };
}

function invoiceBody(catalogue: Catalogue, lines: number): string {
  const pick = <T>(list: T[]): T => list[Math.floor(Math.random() * list.length)]!;
  const today = new Date().toISOString().slice(0, 10);
  return JSON.stringify({
    customer_id: pick(catalogue.customers),
    invoice_date: today,
    reference: 'BENCH',
    items: Array.from({ length: lines }, () => {
      const product = pick(catalogue.products);
      return {
        product_id: product.id,
        quantity: 1 + Math.floor(Math.random() * 5),
        price: Number(product.price),
        ...(product.tax_id === null ? {} : { tax_id: product.tax_id }),
      };
    }),
  });
}

async function postInvoices(
  context: BenchContext,
  data: Catalogue,
  lines: number,
  count: number,
): Promise<number[]> {
  const times: number[] = [];
  const runId = `${Date.now().toString(36)}-${lines}`;
  for (let i = 0; i < count; i++) {
    const response = await timedRequest(
      'POST',
      `${context.api.url}${API_PREFIX}/invoices`,
      {
        authorization: bearer(context.writeKey.key),
        'content-type': 'application/json',
        'idempotency-key': `bench-${runId}-${i}`,
      },
      invoiceBody(data, lines),
    );
    if (response.status !== 201) {
      throw new Error(`POST /invoices answered ${response.status}: ${response.body.slice(0, 400)}`);
    }
    times.push(response.ms);
  }
  return times;
}

/** Removes what the bench's write key created (drafts and their idempotency records). */
export async function deleteBenchDrafts(databaseUrl: string, writeKeyId: number): Promise<void> {
  await withClient(databaseUrl, async (client) => {
    await client.query(
      'delete from invoice_items where invoice_id in (select id from invoices where created_by_api_key_id = $1)',
      [writeKeyId],
    );
    await client.query('delete from invoices where created_by_api_key_id = $1', [writeKeyId]);
    await client.query('delete from idempotency_keys where api_key_id = $1', [writeKeyId]);
  });
}

const WARM_UP_REQUESTS = 40;

export async function runWrites(context: BenchContext): Promise<void> {
  const data = await catalogue(context);
  try {
    for (const [lines, goal] of [
      [20, GOALS.post20LinesP50Ms],
      [200, GOALS.post200LinesP50Ms],
    ] as const) {
      // Warm-up: a server that has just started runs this path through the JIT's first tiers;
      // the goal is about the steady state, as in the throughput cases' warm-up seconds.
      await postInvoices(context, data, lines, WARM_UP_REQUESTS);
      const times = await postInvoices(context, data, lines, context.options.writeRequests);
      const p50 = percentile(times, 50);
      context.report.add({
        group: 'writes',
        case: `POST /invoices ${lines} lines (${times.length} requests)`,
        metric: 'p50 / p99 ms',
        api: `${fmt(p50)} / ${fmt(percentile(times, 99))}`,
        bare: '-',
        ratio: `${fmt(p50)} ms`,
        goal: `p50 ≤ ${goal} ms`,
        pass: p50 <= goal,
        details: { samplesMs: times },
      });
    }
  } finally {
    await deleteBenchDrafts(context.dataset.url, context.writeKey.id);
  }
}
