// A client generated from openapi.json by openapi-typescript type-checks a small program that
// lists every customer (walking the pages) and creates a customer and a draft invoice, with the
// Idempotency-Key header the document requires; the same compiler rejects a program that gets
// the contract wrong (a body without a required field, money read as a number, an unknown code).
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const GOOD = `import type { components, operations } from './api.js';

type Customer = components['schemas']['Customer'];
type ListQuery = NonNullable<operations['listCustomers']['parameters']['query']>;
type ListAnswer = operations['listCustomers']['responses'][200]['content']['application/json'];
type CreateCustomer = operations['createCustomer']['requestBody']['content']['application/json'];
type CreatedCustomer = operations['createCustomer']['responses'][201]['content']['application/json'];
type CreateInvoice = operations['createInvoice']['requestBody']['content']['application/json'];
type CreatedInvoice = operations['createInvoice']['responses'][201]['content']['application/json'];
type WriteHeaders = operations['createCustomer']['parameters']['header'];
type ErrorCode = components['schemas']['Error']['error']['code'];

/** Sends one request and returns the parsed JSON answer (fetch, undici, axios...). */
export type Send = (request: { method: 'GET' | 'POST' | 'PUT'; path: string; query?: object; headers?: object; body?: object }) => Promise<unknown>;

export async function listAllCustomers(send: Send): Promise<Customer[]> {
  const all: Customer[] = [];
  for (let page = 1; ; page++) {
    const query: ListQuery = { page, per_page: 100, sort: 'updated_at', order: 'asc', updated_since: '2026-11-01' };
    const answer = (await send({ method: 'GET', path: '/customers', query })) as ListAnswer;
    all.push(...answer.data);
    if (answer.pagination.current_page >= answer.pagination.last_page) return all;
  }
}

export async function createCustomerAndDraft(send: Send, operationKey: string): Promise<string | null> {
  const headers: WriteHeaders = { 'Idempotency-Key': \`\${operationKey}-customer\` };
  const body: CreateCustomer = { name: 'Celso Matsinhe', type: 'individual', nuit: '123456789', email: null };
  const created = (await send({ method: 'POST', path: '/customers', headers, body })) as CreatedCustomer;
  const invoice: CreateInvoice = {
    customer_id: created.data.id,
    invoice_date: '2026-11-22',
    items: [{ product_id: 5, quantity: 8, price: 520, discount: 10 }],
  };
  const draft = (await send({
    method: 'POST',
    path: '/invoices',
    headers: { 'Idempotency-Key': \`\${operationKey}-invoice\` },
    body: invoice,
  })) as CreatedInvoice;
  const status: 'draft' | 'unpaid' | 'partially_paid' | 'paid' | 'cancelled' = draft.data.status;
  const retry: ErrorCode = 'rate_limit_exceeded';
  void status;
  void retry;
  return draft.data.grand_total; // decimal text, e.g. "4421.00"
}
`;

const BAD = `import type { components, operations } from './api.js';

type CreateCustomer = operations['createCustomer']['requestBody']['content']['application/json'];
type ErrorCode = components['schemas']['Error']['error']['code'];

export const noName: CreateCustomer = { nuit: '123456789' };
export function asNumber(invoice: components['schemas']['Invoice']): number {
  return invoice.grand_total;
}
export const code: ErrorCode = 'not_found';
`;

describe('a client generated with openapi-typescript', () => {
  it('type-checks a program that lists and creates, and rejects one that breaks the contract', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'partner-client-'));
    try {
      const document = JSON.parse(await readFile(join(ROOT, 'openapi.json'), 'utf8'));
      await writeFile(join(dir, 'api.ts'), astToString(await openapiTS(document)));
      await writeFile(join(dir, 'good.ts'), GOOD);
      await writeFile(join(dir, 'bad.ts'), BAD);
      await writeFile(
        join(dir, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            target: 'ES2022',
            module: 'NodeNext',
            moduleResolution: 'NodeNext',
            strict: true,
            noEmit: true,
            types: [],
            lib: ['ES2022'],
          },
          files: ['api.ts', 'good.ts', 'bad.ts'],
        }),
      );
      const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
      const result = await promisify(execFile)(process.execPath, [tsc, '-p', '.', '--pretty', 'false'], {
        cwd: dir,
      }).then(
        () => ({ stdout: '' }),
        (error: { stdout: string }) => ({ stdout: error.stdout }),
      );
      const errors = result.stdout.split('\n').filter((line) => /error TS/.test(line));
      expect(errors.filter((line) => !line.startsWith('bad.ts'))).toEqual([]);
      expect(errors.map((line) => line.replace(/^bad\.ts\((\d+),\d+\).*$/, '$1'))).toEqual(['6', '8', '10']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
