// The partner kit against one harness on this project's storage (test/helpers/client-harness.ts:
// `bin/invoicing serve` with recording proxies, a server with low limits and a movable clock, a
// webhook receiver, the operator's command line), one language after the other:
// - the Python client's own unittest suites (clients/python/tests): Python 3 of the machine
//   (Debian's python3 in CI; PYTHON_BIN picks another);
// - the PHP client's own PHPUnit suites (clients/php/tests): Debian's php-cli, php-curl and
//   phpunit (scripts/ensure-php.sh; PHPUNIT_BIN picks another);
// - the TypeScript client's webhook helper on real deliveries (its other tests against a real
//   server are in test/clients/*.test.ts, in npm test).
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Customer,
  PartnerApi,
  verifyWebhook,
  WebhookVerificationError,
} from '../../../clients/typescript/src/index.js';
import { type ClientHarness, childEnv, startClientHarness } from '../../helpers/client-harness.js';
import { run } from './run.js';

const PYTHON_PACKAGE = fileURLToPath(new URL('../../../clients/python/', import.meta.url));
const PHP_PACKAGE = fileURLToPath(new URL('../../../clients/php/', import.meta.url));
const PYTHON = process.env.PYTHON_BIN ?? 'python3';
const PHPUNIT = process.env.PHPUNIT_BIN ?? 'phpunit';

interface Delivery {
  headers: Record<string, string>;
  body: string;
}

describe('the clients against a real server', () => {
  let harness: ClientHarness;
  // biome-ignore lint/suspicious/noExplicitAny: the harness answers plain JSON
  const control = async (method: string, path: string, body?: unknown): Promise<any> => {
    const response = await fetch(`${harness.env.PARTNER_HARNESS_URL}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? null : JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`harness ${path}: ${response.status} ${await response.text()}`);
    return response.json();
  };
  const delivery = async (companyId: number, type: string): Promise<Delivery> => {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const found = (
        (await control('GET', `/webhooks/deliveries?company_id=${companyId}`)) as Delivery[]
      ).find((one) => one.body.includes(`"${type}"`));
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no ${type} delivery`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  beforeAll(async () => {
    harness = await startClientHarness();
  });
  afterAll(() => harness?.close());

  it('Python, unit tests: body encoding, NUIT, webhook signatures, pacing', async () => {
    const result = await run(PYTHON, ['-m', 'unittest', 'discover', '-v', '-s', 'tests/unit', '-t', '.'], {
      cwd: PYTHON_PACKAGE,
      env: childEnv(harness, { PYTHONDONTWRITEBYTECODE: '1' }),
    });
    expect(result.code, result.output).toBe(0);
  });

  it('Python, against the server: every method, lost answers, 429, pacing, money, webhooks, README', async () => {
    const result = await run(PYTHON, ['-m', 'unittest', 'discover', '-v', '-s', 'tests/server', '-t', '.'], {
      cwd: PYTHON_PACKAGE,
      env: childEnv(harness, { PYTHONDONTWRITEBYTECODE: '1' }),
    });
    expect(result.code, result.output).toBe(0);
    expect(result.output).toMatch(/^OK/m);
  });

  it('PHP, unit tests: body encoding, NUIT, webhook signatures, pacing', async () => {
    const result = await run(PHPUNIT, ['--testsuite', 'unit'], { cwd: PHP_PACKAGE, env: childEnv(harness) });
    expect(result.code, result.output).toBe(0);
  });

  it('PHP, against the server: every method, lost answers, 429, pacing, money, webhooks, README', async () => {
    const result = await run(PHPUNIT, ['--testsuite', 'server', '--testdox'], {
      cwd: PHP_PACKAGE,
      env: childEnv(harness),
    });
    expect(result.code, result.output).toBe(0);
    expect(result.output).toMatch(/^OK \(/m);
  });

  it('TypeScript: the webhook helper accepts a real delivery, refuses a tampered one, follows a rotation', async () => {
    const tenant = await control('POST', '/tenants', { name: 'Recebe Webhooks TS, Lda' });
    const endpoint = await control('POST', '/webhooks', { company_id: tenant.company_id });
    const api = new PartnerApi({ apiKey: tenant.key, baseUrl: harness.env.PARTNER_API_URL as string });
    const customer = await api.customers.create({ name: 'Cliente Notificado TS', nuit: '400339910' });

    const created = await delivery(tenant.company_id, 'customer.created');
    const event = await verifyWebhook<Customer>(created.body, created.headers, endpoint.secret);
    expect(event).toMatchObject({ type: 'customer.created', id: created.headers['webhook-id'] });
    expect(event.data).toMatchObject({ id: customer.id, nuit: '400339910' });

    const tampered = created.body.replace('Cliente Notificado TS', 'Cliente Falso TS');
    expect(tampered).not.toBe(created.body);
    await expect(verifyWebhook(tampered, created.headers, endpoint.secret)).rejects.toBeInstanceOf(
      WebhookVerificationError,
    );
    await expect(
      verifyWebhook(created.body, created.headers, `whsec_${'A'.repeat(44)}`),
    ).rejects.toMatchObject({
      reason: 'signature',
    });

    const rotated = await control('POST', '/cli', {
      args: ['webhooks', 'rotate-secret', String(endpoint.id)],
    });
    await api.customers.update(customer.id, { phone: '+258 84 123 4567' });
    const updated = await delivery(tenant.company_id, 'customer.updated');
    expect(updated.headers['webhook-signature']?.split(' ')).toHaveLength(2);
    for (const secret of [endpoint.secret, rotated.secret, [endpoint.secret, rotated.secret]]) {
      expect((await verifyWebhook<Customer>(updated.body, updated.headers, secret)).data.phone).toBe(
        '+258 84 123 4567',
      );
    }
  });
});
