// issue 40, "Roles enforced on the server, declared as data": every route of src/console/roles.ts
// walked with every role, through real HTTP, on PGlite and on PostgreSQL. Below a route's role a
// page answers 404 (as a missing thing) and an action 403; without a session a page sends to
// /login and an action is refused. A partner account never reaches another company.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allowed, ROUTES, type RouteRule } from '../../src/console/roles.js';
import { requestLog } from '../../src/db/schema.js';
import { executeOperation } from '../../src/operations/index.js';
import {
  type Answer,
  ConsoleClient,
  signedInPerson,
  startTestConsole,
  type TestConsole,
  type TestPerson,
} from '../helpers/console.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

interface CompanyFixture {
  id: number;
  keyId: number;
  endpointId: number;
  requestId: string;
  eventId: string;
}

describe('support console roles', () => {
  let database: TestDatabase;
  let consoleServer: TestConsole;
  let mine: CompanyFixture;
  let people: Record<'partner' | 'viewer' | 'support' | 'admin', TestPerson>;
  let target: number;

  async function company(name: string): Promise<CompanyFixture> {
    const setup = consoleServer.setup;
    const made = await executeOperation(setup, 'companies.create', { name }, 'test');
    const key = await executeOperation(setup, 'keys.create', { company: made.id, mode: 'test' }, 'test');
    const endpoint = await executeOperation(
      setup,
      'webhooks.create',
      { company: made.id, url: 'http://127.0.0.1:9/hook' },
      'test',
    );
    const requestId = `req_${randomBytes(12).toString('hex')}`;
    await database.handle.db.insert(requestLog).values({
      at: new Date(),
      companyId: made.id,
      apiKeyId: key.id,
      method: 'GET',
      route: '/api/v1/partner/ping',
      status: 200,
      requestId,
      durationUs: 1500,
      clientIp: '127.0.0.1',
    });
    // A delivery to resend: a ping (nothing listens there: a failed attempt).
    await executeOperation(setup, 'companies.enable-api', { id: made.id }, 'test');
    const ping = await executeOperation(setup, 'webhooks.test', { id: endpoint.id }, 'test');
    return { id: made.id, keyId: key.id, endpointId: endpoint.id, requestId, eventId: ping.event_id };
  }

  beforeAll(async () => {
    database = await createTestDatabase();
    consoleServer = await startTestConsole(database.handle);
    mine = await company('Minha Empresa, Lda');
    await company('Outra Empresa, Lda');
    people = {
      partner: await signedInPerson(consoleServer, 'partner', mine.id),
      viewer: await signedInPerson(consoleServer, 'viewer'),
      support: await signedInPerson(consoleServer, 'support'),
      admin: await signedInPerson(consoleServer, 'admin'),
    };
    target = (
      await executeOperation(
        consoleServer.setup,
        'staff.create',
        { email: 'alvo@example.co.mz', name: 'Alvo', role: 'viewer' },
        'test',
      )
    ).id;
  });
  afterAll(async () => {
    await consoleServer?.close();
    await database?.close();
  });

  function pathOf(rule: RouteRule, fixture: CompanyFixture): string {
    if (rule.url === '/usage') return `/usage?company=${fixture.id}&key=${fixture.keyId}&window=7d`;
    return rule.url
      .replace(':id', rule.url.startsWith('/staff') ? String(target) : String(fixture.id))
      .replace(':keyId', String(fixture.keyId))
      .replace(':endpointId', String(fixture.endpointId))
      .replace(':requestId', fixture.requestId)
      .replace(':token', 'A'.repeat(43));
  }

  const FORMS: Record<string, Record<string, string>> = {
    '/companies/:id/api': { enabled: 'true' },
    '/companies/:id/keys': { mode: 'test', scopes: 'all', days: '30' },
    '/companies/:id/keys/:keyId/roll': { grace: '1h' },
    '/companies/:id/keys/:keyId/revoke': { confirm: 'yes' },
    '/companies/:id/webhooks/:endpointId/replay': { since: '2020-01-01' },
    '/companies/:id/webhooks/:endpointId/test': {},
    '/staff': { email: `novo-${Date.now()}@example.co.mz`, name: 'Novo', role: 'viewer' },
  };

  async function call(client: ConsoleClient, rule: RouteRule, fixture: CompanyFixture): Promise<Answer> {
    const path = pathOf(rule, fixture);
    if (rule.method === 'GET') return client.get(path);
    // A form as the console's own page would send it: a valid token and this console's Origin.
    const form = await client.get('/login');
    const token = ConsoleClient.csrfOf(
      form.text.includes('_csrf') ? form.text : (await client.get('/requests')).text,
    );
    return client.request('POST', path, {
      form: {
        _csrf: token,
        ...(rule.url === '/companies/:id/webhooks/resend'
          ? { endpoint: String(fixture.endpointId), event: fixture.eventId }
          : FORMS[rule.url]),
      },
      headers: { origin: consoleServer.origin },
    });
  }

  /** The rule, written again here: the server's check (allowed) must agree with it. */
  function expectedAllowed(role: 'partner' | 'viewer' | 'support' | 'admin', rule: RouteRule): boolean {
    if (role === 'partner') return rule.partner === true && (rule.method === 'GET' || rule.url === '/logout');
    const rank = { viewer: 1, support: 2, admin: 3 } as const;
    return rank[role] >= rank[rule.need as keyof typeof rank];
  }

  const walked = (ROUTES as readonly RouteRule[]).filter((rule) => rule.need !== 'public');

  it('issue 40: every route, every role: below its role a page is 404 and an action 403; without a session, /login or 403', async () => {
    const anonymous = new ConsoleClient(consoleServer);
    for (const rule of walked) {
      const answer = await call(anonymous, rule, mine);
      const label = `anonymous ${rule.method} ${rule.url}`;
      if (rule.method === 'GET') {
        expect(answer.status, label).toBe(303);
        expect(answer.location, label).toMatch(/^\/login\?next=/);
      } else {
        expect(answer.status, label).toBe(403);
      }
    }
    // The ones refused first (a refusal must never depend on what a higher role did before).
    for (const role of ['partner', 'viewer', 'support', 'admin'] as const) {
      for (const rule of walked.filter((r) => r.url !== '/logout')) {
        const answer = await call(people[role].client, rule, mine);
        const label = `${role} ${rule.method} ${rule.url}: ${answer.status}`;
        if (expectedAllowed(role, rule)) {
          expect([200, 303, 422], label).toContain(answer.status);
        } else {
          expect(answer.status, label).toBe(rule.method === 'GET' ? 404 : 403);
        }
      }
    }
    // Logout is for every signed-in role (last: it ends the session).
    for (const role of ['partner', 'viewer', 'support', 'admin'] as const) {
      const answer = await call(
        people[role].client,
        { method: 'POST', url: '/logout', need: 'viewer' },
        mine,
      );
      expect(answer.status, role).toBe(200);
      expect((await people[role].client.get('/requests')).status, role).toBe(303);
    }
  });

  it('issue 40: the table names every route the server has, each once', () => {
    const keys = (ROUTES as readonly RouteRule[]).map((rule) => `${rule.method} ${rule.url}`);
    expect(new Set(keys).size).toBe(keys.length);
    for (const rule of ROUTES as readonly RouteRule[]) {
      const label = `${rule.method} ${rule.url}`;
      // Viewers read everything; every change needs support at least; staff is the admin's; a
      // partner only reads.
      if (rule.method === 'GET' && rule.need !== 'public')
        expect(rule.need, label).toBe(rule.url.startsWith('/staff') ? 'admin' : 'viewer');
      if (rule.method === 'POST' && !['/login', '/setup/:token', '/logout'].includes(rule.url)) {
        expect(['support', 'admin'], label).toContain(rule.need);
        expect(rule.partner, label).toBeUndefined();
      }
      if (rule.url.startsWith('/staff')) expect(rule.need, label).toBe('admin');
      for (const role of ['partner', 'viewer', 'support', 'admin'] as const) {
        if (rule.need !== 'public')
          expect(allowed(role, rule), `${role} ${label}`).toBe(expectedAllowed(role, rule));
      }
    }
  });
});

describe('a partner account', () => {
  let database: TestDatabase;
  let consoleServer: TestConsole;
  let partner: TestPerson;
  const fixtures: Record<
    'mine' | 'other',
    { id: number; keyId: number; endpointId: number; requestId: string }
  > = {
    mine: { id: 0, keyId: 0, endpointId: 0, requestId: '' },
    other: { id: 0, keyId: 0, endpointId: 0, requestId: '' },
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    consoleServer = await startTestConsole(database.handle);
    for (const which of ['mine', 'other'] as const) {
      const setup = consoleServer.setup;
      const made = await executeOperation(setup, 'companies.create', { name: `Empresa ${which}` }, 'test');
      const key = await executeOperation(setup, 'keys.create', { company: made.id }, 'test');
      const endpoint = await executeOperation(
        setup,
        'webhooks.create',
        { company: made.id, url: 'http://127.0.0.1:9/hook' },
        'test',
      );
      const requestId = `req_${randomBytes(12).toString('hex')}`;
      await database.handle.db.insert(requestLog).values({
        at: new Date(),
        companyId: made.id,
        apiKeyId: key.id,
        method: 'POST',
        route: '/api/v1/partner/customers',
        status: 201,
        requestId,
        durationUs: 2500,
        clientIp: '127.0.0.1',
      });
      fixtures[which] = { id: made.id, keyId: key.id, endpointId: endpoint.id, requestId };
    }
    partner = await signedInPerson(consoleServer, 'partner', fixtures.mine.id);
  });
  afterAll(async () => {
    await consoleServer?.close();
    await database?.close();
  });

  it('issue 40: a partner account never reaches another company: its company, keys, endpoints and requests answer exactly like missing ones', async () => {
    const { mine, other } = fixtures;
    const normalized = (answer: Answer) => ({
      status: answer.status,
      text: answer.text.replace(/name="_csrf" value="[^"]+"/g, ''),
    });
    const missing = normalized(await partner.client.get('/companies/999999'));
    expect(missing.status).toBe(404);
    for (const path of [
      `/companies/${other.id}`,
      `/companies/${other.id}/keys`,
      `/companies/${other.id}/keys/${other.keyId}`,
      `/companies/${mine.id}/keys/${other.keyId}`,
      `/companies/${other.id}/webhooks`,
      `/companies/${other.id}/webhooks/${other.endpointId}`,
      `/companies/${mine.id}/webhooks/${other.endpointId}`,
      `/requests/${other.requestId}`,
      `/usage?company=${other.id}`,
      `/usage?company=${mine.id}&key=${other.keyId}`,
      '/companies',
      '/audit',
      '/staff',
    ]) {
      expect(normalized(await partner.client.get(path)), path).toEqual(missing);
    }
    // Its own company's pages open; its request list is its own whatever `company` says.
    for (const path of [
      `/companies/${mine.id}`,
      `/companies/${mine.id}/keys/${mine.keyId}`,
      `/companies/${mine.id}/webhooks/${mine.endpointId}`,
      `/requests/${mine.requestId}`,
      `/usage?company=${mine.id}&key=${mine.keyId}`,
    ]) {
      expect((await partner.client.get(path)).status, path).toBe(200);
    }
    const list = await partner.client.get(`/requests?company=${other.id}`);
    expect(list.status).toBe(200);
    expect(list.text).toContain(mine.requestId);
    expect(list.text).not.toContain(other.requestId);
    // Read-only: no form to create a key, and the action itself is refused.
    const keys = await partner.client.get(`/companies/${mine.id}/keys`);
    expect(keys.text).not.toContain(`action="/companies/${mine.id}/keys"`);
  });
});
