// Every code sample of the docs site runs, and does what it says. The samples (docs/samples: the
// reference's x-codeSamples, the guide's and the webhooks page's) are run as they are shown, in
// curl (sh), TypeScript (tsx), PHP and Python, against `bin/invoicing serve` on this project's
// storage, each language with a company and key of its own whose example records exist
// (test/helpers/sample-runner.ts replaces the example ids with theirs). Each run must end well and
// print what the sample promises; writes are checked through the API too. The retries sample meets
// a lost answer (a proxy drops the server's answer to the first write) and must create once. The
// webhook samples receive real deliveries of the server (`webhooks create`), ignore a resend of the
// same event, and refuse forged and tampered ones; the shell one checks a real delivery with openssl.
import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE_LANGUAGES, SAMPLES, type SampleLanguage } from '../../../src/docs/samples.js';
import {
  apiCall,
  type CliStorage,
  cliJson,
  createCliStorage,
  type ServeProcess,
  startServe,
} from '../../helpers/cli.js';
import { RecordingProxy } from '../../helpers/client-server.js';
import {
  eventually,
  type Finished,
  LABELS,
  prepareSample,
  type RecordIds,
  runSample,
  startSample,
} from '../../helpers/sample-runner.js';
import { freePort } from '../../helpers/server-process.js';
import { type Receiver, startReceiver } from '../../helpers/webhook-receiver.js';

// biome-ignore lint/suspicious/noExplicitAny: JSON answers of the API, checked field by field
type Answer = any;

interface SampleTenant {
  name: string;
  companyId: number;
  key: string;
  ids: RecordIds;
}

interface CheckContext {
  tenant: SampleTenant;
  language: SampleLanguage;
  get(path: string): Promise<Answer>;
}

type Check = (run: Finished, context: CheckContext) => void | Promise<void>;

/** How many records a list has now. */
const totalOf = async (context: CheckContext, path: string) =>
  (await context.get(`${path}${path.includes('?') ? '&' : '?'}per_page=1`)).pagination.total as number;

/** The distinct ids at the start of the lines (`<id> ...`). */
const idsAtLineStart = (text: string) => new Set([...text.matchAll(/^(\d+) /gm)].map((match) => match[1]));

const FISCAL_CODE = /FT \d{4}\/\d{6}/;

/** What each sample must print (in every language) and change. */
const CHECKS: Record<string, Check> = {
  getPing: ({ stdout }, { tenant }) => {
    expect(stdout).toContain(tenant.name);
    expect(stdout).toContain('live');
  },
  listCustomers: ({ stdout }) => expect(stdout).toContain('Ferragens Xai-Xai, Lda'),
  createCustomer: async ({ stdout }, context) => {
    expect(stdout).toContain('Talho Polana, Lda');
    expect(await totalOf(context, '/customers?search=Talho%20Polana')).toBe(1);
  },
  getCustomer: ({ stdout }) => {
    expect(stdout).toContain('Ferragens Xai-Xai, Lda');
    expect(stdout).toContain('400339910');
  },
  updateCustomer: async ({ stdout }, context) => {
    expect(stdout).toContain('+258 84 123 4567');
    const customer = (await context.get(`/customers/${context.tenant.ids.customer}`)).data;
    expect([customer.phone, customer.address]).toEqual([
      '+258 84 123 4567',
      'Av. Samora Machel 210, Xai-Xai',
    ]);
  },
  listProducts: ({ stdout }) => expect(stdout).toContain('Cimento Portland 50 kg'),
  createProduct: async ({ stdout }, context) => {
    expect(stdout).toContain('Instalação eléctrica');
    expect(stdout).toContain('1250.50');
    expect(await totalOf(context, '/products?search=SRV-ELEC')).toBe(1);
  },
  getProduct: ({ stdout }) => {
    expect(stdout).toContain('Cimento Portland 50 kg');
    expect(stdout).toMatch(/6[57][05]\.00/);
  },
  updateProduct: async ({ stdout }, context) => {
    expect(stdout).toContain('675.00');
    expect((await context.get(`/products/${context.tenant.ids.product}`)).data.price).toBe('675.00');
  },
  listInvoices: ({ stdout }) => {
    expect(stdout).toMatch(FISCAL_CODE);
    expect(stdout).toContain('partially_paid');
    expect(stdout).toContain('4000.00');
  },
  getInvoice: ({ stdout }) => {
    expect(stdout).toMatch(FISCAL_CODE);
    expect(stdout).toContain('6500.00');
    expect(stdout).toContain('Cimento Portland 50 kg');
  },
  createInvoice: async ({ stdout }, context) => {
    expect(stdout).toMatch(/DRAFT-\S{8}/);
    expect(stdout).toContain('draft');
    expect(stdout).toContain('6175.00');
    expect(await totalOf(context, `/invoices?status=draft&customer_id=${context.tenant.ids.customer}`)).toBe(
      1,
    );
  },
  listPayments: ({ stdout }) => {
    expect(stdout).toContain('2500.00');
    expect(stdout).toMatch(FISCAL_CODE);
  },
  getPayment: ({ stdout }) => {
    expect(stdout).toContain('2500.00');
    expect(stdout).toMatch(FISCAL_CODE);
  },
  pagination: async ({ stdout }, context) => {
    const total = await totalOf(context, '/customers');
    expect(total).toBeGreaterThan(100); // more than one page of 100
    expect(idsAtLineStart(stdout).size).toBe(total);
  },
  incrementalSync: async ({ stdout }, context) => {
    const total = await totalOf(context, '/customers');
    expect(total).toBeGreaterThan(100);
    expect(idsAtLineStart(stdout).size).toBe(total);
  },
  idempotency: async ({ stdout }, context) => {
    if (context.language === 'sh') {
      expect(stdout.match(/^HTTP\/1\.1 201/gm)).toHaveLength(2);
      expect(stdout).toMatch(/^idempotency-replay: true/im);
      const ids = [...stdout.matchAll(/\{"data":\{"id":(\d+)/g)].map((match) => match[1]);
      expect(ids).toHaveLength(2);
      expect(ids[0]).toBe(ids[1]);
    } else {
      expect(stdout).toMatch(/^(\d+) \1 replayed=true$/m);
    }
    expect(await totalOf(context, '/customers?search=Padaria%20Costa%20do%20Sol')).toBe(1);
  },
  retries: async ({ stdout }, context) => {
    expect(stdout).toContain('Oficina Matola Rio');
    if (context.language !== 'sh') {
      expect(stdout).toMatch(/^retry after attempt 1 of POST \/customers/m);
      expect(stdout).toContain('replayed=true');
    }
    expect(await totalOf(context, '/customers?search=Oficina%20Matola%20Rio')).toBe(1);
  },
  errors: ({ stdout }) => {
    expect(stdout).toMatch(/\b422\b/);
    expect(stdout).toContain('validation_failed');
    expect(stdout).toContain('items.0.price');
    expect(stdout).toMatch(/req_[0-9a-f]+/);
  },
};

describe('the code samples of the docs, run against a real server', () => {
  let storage: CliStorage;
  let env: Record<string, string>;
  let serve: ServeProcess;
  let proxy: RecordingProxy;
  let receiver: Receiver;
  const tenants = new Map<SampleLanguage, SampleTenant>();

  const cli = <T = Record<string, unknown>>(args: string[]) => cliJson<T>(args, env);
  const write = async (
    tenant: { key: string },
    method: string,
    path: string,
    body: unknown,
  ): Promise<Answer> => {
    const answer = await apiCall(serve.apiBaseUrl, tenant.key, path, {
      method,
      body,
      idempotencyKey: randomUUID(),
    });
    expect(answer.status, JSON.stringify(answer.body)).toBeLessThan(300);
    return answer.body.data;
  };

  /** A company of its own for a language, with the records the samples name. */
  async function sampleTenant(language: SampleLanguage): Promise<SampleTenant> {
    const name = `Amostras ${LABELS[language]}, Lda`;
    const company = await cli<{ id: number }>(['companies', 'create', '--name', name]);
    await cli(['companies', 'enable-api', String(company.id)]);
    const { key } = await cli<{ key: string }>(['keys', 'create', '--company', String(company.id)]);
    const tenant = { key };
    const customer = await write(tenant, 'POST', '/customers', {
      name: 'Ferragens Xai-Xai, Lda',
      type: 'company',
      nuit: '400339910',
      email: 'compras@ferragens-xaixai.co.mz',
    });
    const product = await write(tenant, 'POST', '/products', {
      name: 'Cimento Portland 50 kg',
      type: 'GOODS',
      inventory: 'INVENTORY',
      price: 650,
      sku: 'CIM-50',
      is_for_sale: true,
    });
    const invoice = await write(tenant, 'POST', '/invoices', {
      customer_id: customer.id,
      invoice_date: '2026-11-20',
      due_date: '2026-12-20',
      items: [{ product_id: product.id, quantity: 10, price: 650 }],
    });
    await cli(['invoices', 'issue', String(invoice.id)]);
    const payment = await cli<{ id: number }>([
      'payments',
      'record',
      '--invoice',
      String(invoice.id),
      '--amount',
      '2500.00',
    ]);
    // More than a page of 100, for the pagination and sync samples.
    for (let batch = 0; batch < 105; batch += 15) {
      await Promise.all(
        Array.from({ length: 15 }, (_, i) =>
          write(tenant, 'POST', '/customers', { name: `Cliente de amostra ${batch + i + 1}` }),
        ),
      );
    }
    return {
      name,
      companyId: company.id,
      key,
      ids: { customer: customer.id, product: product.id, invoice: invoice.id, payment: payment.id },
    };
  }

  beforeAll(async () => {
    storage = await createCliStorage();
    env = { ...storage.env, WEBHOOK_ALLOW_HTTP: 'true' };
    serve = await startServe(env);
    proxy = await RecordingProxy.start(serve.url);
    receiver = await startReceiver();
    for (const language of SAMPLE_LANGUAGES) tenants.set(language.id, await sampleTenant(language.id));
  });
  afterAll(async () => {
    await receiver?.close();
    await proxy?.close();
    await serve?.stop();
    await storage?.close();
  });

  const context = (language: SampleLanguage): CheckContext => {
    const tenant = tenants.get(language)!;
    return {
      tenant,
      language,
      get: async (path) => {
        const answer = await apiCall(serve.apiBaseUrl, tenant.key, path);
        expect(answer.status).toBe(200);
        return answer.body;
      },
    };
  };

  it('has a check for every sample that is run to its end', () => {
    const runs = SAMPLES.filter((sample) => sample.id !== 'webhooks').map((sample) => sample.id);
    expect(Object.keys(CHECKS).sort()).toEqual(runs.sort());
  });

  for (const sample of SAMPLES.filter((one) => one.id !== 'webhooks')) {
    for (const language of SAMPLE_LANGUAGES) {
      it(`${sample.id} in ${language.label}`, async () => {
        const tenant = tenants.get(language.id)!;
        const folder = await prepareSample(sample.id, language.id, tenant.ids);
        // The retries sample goes through a proxy that drops the answer to the first write.
        const retried = sample.id === 'retries';
        if (retried) {
          proxy.requests.length = 0;
          proxy.plan = (request) =>
            request.method === 'POST' && proxy.of('POST').length === 1
              ? { kind: 'lose-response' }
              : { kind: 'forward' };
        }
        try {
          const run = await runSample(language.id, folder, {
            PARTNER_API_URL: retried ? proxy.baseUrl : serve.apiBaseUrl,
            PARTNER_API_KEY: tenant.key,
          });
          expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
          await CHECKS[sample.id]!(run, context(language.id));
          if (retried) {
            // Two attempts of one write: the same key, the same bytes; the first one's answer lost.
            const posts = proxy.of('POST');
            expect(posts.map((post) => post.action)).toEqual(['lose-response', 'forward']);
            expect(posts[1]!.headers['idempotency-key']).toBe(posts[0]!.headers['idempotency-key']);
            expect(posts[1]!.body.equals(posts[0]!.body)).toBe(true);
          }
        } finally {
          proxy.plan = () => ({ kind: 'forward' });
          await folder.close();
        }
      });
    }
  }

  it('webhooks in curl: the openssl check verifies a real delivery and refuses a tampered one', async () => {
    const tenant = tenants.get('sh')!;
    const path = `/samples/${tenant.companyId}`;
    const endpoint = await cli<{ secret: string }>([
      'webhooks',
      'create',
      '--company',
      String(tenant.companyId),
      '--url',
      receiver.url(path),
    ]);
    await write(tenant, 'POST', '/customers', { name: 'Cliente Notificado curl' });
    await receiver.waitFor(
      (requests) =>
        requests.some((request) => request.path === path && request.body.includes('customer.created')),
      30_000,
    );
    const delivery = receiver.at(path).find((request) => request.body.includes('customer.created'))!;
    const folder = await prepareSample('webhooks', 'sh', tenant.ids);
    const headers = {
      WEBHOOK_ID: delivery.headers['webhook-id']!,
      WEBHOOK_TIMESTAMP: delivery.headers['webhook-timestamp']!,
      WEBHOOK_SIGNATURE: delivery.headers['webhook-signature']!,
      INVOICING_WEBHOOK_SECRET: endpoint.secret,
    };
    try {
      await writeFile(join(folder.dir, 'body.json'), delivery.body);
      const good = await runSample('sh', folder, headers);
      expect([good.code, good.stdout.trim()], good.stderr).toEqual([0, `verified: ${headers.WEBHOOK_ID}`]);
      await writeFile(
        join(folder.dir, 'body.json'),
        delivery.body.replace('Cliente Notificado', 'Cliente Falso'),
      );
      const tampered = await runSample('sh', folder, headers);
      expect([tampered.code, tampered.stdout.trim()]).toEqual([1, 'refused: signature']);
      const stale = await runSample('sh', folder, {
        ...headers,
        WEBHOOK_TIMESTAMP: String(Number(headers.WEBHOOK_TIMESTAMP) - 3600),
      });
      expect([stale.code, stale.stdout.trim()]).toEqual([1, 'refused: timestamp']);
    } finally {
      await folder.close();
    }
  });

  for (const language of ['ts', 'php', 'py'] as const) {
    it(`webhooks in ${LABELS[language]}: the receiver handles a real delivery once, answers its resend, refuses forgeries`, async () => {
      const tenant = tenants.get(language)!;
      const port = await freePort();
      const endpoint = await cli<{ id: number; secret: string }>([
        'webhooks',
        'create',
        '--company',
        String(tenant.companyId),
        '--url',
        `http://127.0.0.1:${port}/webhooks`,
      ]);
      const folder = await prepareSample('webhooks', language, tenant.ids);
      const receiving = await startSample(language, folder, port, {
        INVOICING_WEBHOOK_SECRET: endpoint.secret,
      });
      const log = async () =>
        (
          await cli<{ deliveries: { event_id: string; status: string; status_code: number | null }[] }>([
            'webhooks',
            'deliveries',
            String(endpoint.id),
          ])
        ).deliveries;
      try {
        await write(tenant, 'POST', '/customers', { name: `Cliente Notificado ${LABELS[language]}` });
        const handled = /customer\.created (evt_[0-9a-f]+)/;
        const output = await eventually(receiving.output, (text) => handled.test(text), 'the event handled');
        const eventId = handled.exec(output)![1]!;
        expect((await log()).find((row) => row.event_id === eventId)).toMatchObject({
          status: 'succeeded',
          status_code: 204,
        });

        // A resend is the same event again: answered 2xx, not handled a second time.
        await cli(['webhooks', 'resend', eventId]);
        await eventually(
          log,
          (rows) => rows.filter((row) => row.event_id === eventId && row.status === 'succeeded').length === 2,
          'the resend answered',
        );
        expect(receiving.output().split(eventId).length - 1).toBe(1);

        // Forged: another secret; tampered: signed with the real one, then changed; unsigned.
        const body = JSON.stringify({
          id: 'evt_00000000000000000000dead',
          type: 'customer.created',
          created_at: '2026-11-22T09:30:00.000+02:00',
          data: { id: 1, name: 'Cliente Falso' },
        });
        const now = new Date();
        const signed = (secret: string) =>
          new Webhook(secret).sign('evt_00000000000000000000dead', now, body);
        const post = (headers: Record<string, string>, payload = body) =>
          fetch(`http://127.0.0.1:${port}/webhooks`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', ...headers },
            body: payload,
          });
        const stamp = String(Math.floor(now.getTime() / 1000));
        const base = { 'webhook-id': 'evt_00000000000000000000dead', 'webhook-timestamp': stamp };
        const otherSecret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
        expect((await post({ ...base, 'webhook-signature': signed(otherSecret) })).status).toBe(400);
        expect(
          (
            await post(
              { ...base, 'webhook-signature': signed(endpoint.secret) },
              body.replace('Falso', 'Forjado'),
            )
          ).status,
        ).toBe(400);
        expect((await post({})).status).toBe(400);
        expect(receiving.output()).not.toContain('evt_00000000000000000000dead');
      } finally {
        await receiving.stop();
        await folder.close();
      }
    });
  }
});
