// issue 40, "Sessions a security review accepts": the console's protections through real HTTP, on
// PGlite and on PostgreSQL. Each test changes or reads state so that it fails when its protection
// is removed (the change goes through, the cookie keeps its id, the page runs the script...).
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTENT_SECURITY_POLICY } from '../../src/console/server.js';
import { companies, staffSessions } from '../../src/db/schema.js';
import { executeOperation } from '../../src/operations/index.js';
import {
  ConsoleClient,
  logIn,
  nextCode,
  PASSWORD,
  signedInPerson,
  startTestConsole,
  type TestConsole,
  type TestPerson,
} from '../helpers/console.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

const XSS_IMG = '<img src=x onerror=alert(1)>';
const XSS_SCRIPT = '</script><script>alert(2)</script>';

describe('support console security', () => {
  let database: TestDatabase;
  let consoleServer: TestConsole;
  let support: TestPerson;
  let companyId: number;

  const apiEnabled = async () =>
    (await database.handle.db.select().from(companies).where(eq(companies.id, companyId)))[0]
      ?.partnerApiEnabled;

  beforeAll(async () => {
    database = await createTestDatabase();
    consoleServer = await startTestConsole(database.handle);
    const company = await executeOperation(
      consoleServer.setup,
      'companies.create',
      { name: XSS_IMG, nuit: XSS_SCRIPT },
      'test',
    );
    companyId = company.id;
    support = await signedInPerson(consoleServer, 'support');
  });
  afterAll(async () => {
    await consoleServer?.close();
    await database?.close();
  });

  it('issue 40: a cross-site POST (another Origin, no Origin, or no _csrf) changes nothing; the same form from the console does', async () => {
    const page = `/companies/${companyId}`;
    const action = `${page}/api`;
    expect(await apiEnabled()).toBe(false);
    for (const options of [
      { origin: 'https://evil.example' },
      { origin: null },
      { csrf: null },
      { csrf: 'forged-token' },
    ]) {
      const answer = await support.client.submit(page, action, { enabled: 'true' }, options);
      expect(answer.status, JSON.stringify(options)).toBe(403);
      expect(await apiEnabled(), JSON.stringify(options)).toBe(false);
    }
    const done = await support.client.submit(page, action, { enabled: 'true' });
    expect(done.status).toBe(303);
    expect(await apiEnabled()).toBe(true);
  });

  it('issue 40: the session id changes at login; the earlier one no longer opens a page', async () => {
    const client = new ConsoleClient(consoleServer);
    const before = [...support.client.cookies].find(([name]) => name === 'console_session');
    expect(before).toBeDefined();
    // The earlier session's cookie comes with the login form (a planted or an old one).
    const login = await logIn(client, support, before?.[1]);
    expect(login.status).toBe(303);
    const after = client.cookies.get('console_session');
    expect(after).toBeDefined();
    expect(after).not.toBe(before?.[1]);
    expect((await client.get('/companies')).status).toBe(200);
    const old = new ConsoleClient(consoleServer);
    old.cookies.set('console_session', before?.[1] as string);
    expect((await old.get('/companies')).status).toBe(303);
    support = { ...support, client };
  });

  it('issue 40: cookie flags: HttpOnly, SameSite=Strict, Path=/; behind https (CONSOLE_URL) __Host- and Secure', async () => {
    const person = await signedInPerson(consoleServer, 'viewer');
    const login = await logIn(new ConsoleClient(consoleServer), person);
    const cookie = login.setCookies.find((line) => line.startsWith('console_session='));
    expect(cookie).toMatch(/; HttpOnly/i);
    expect(cookie).toMatch(/; SameSite=Strict/i);
    expect(cookie).toMatch(/; Path=\//i);
    expect(cookie).not.toMatch(/; Secure/i);
    const csrfCookie = login.setCookies.find((line) => line.startsWith('console_csrf=')) ?? '';
    const loginPage = await new ConsoleClient(consoleServer).get('/login');
    expect(loginPage.setCookies.find((line) => line.startsWith('console_csrf='))).toMatch(
      /HttpOnly.*SameSite=Strict|SameSite=Strict.*HttpOnly/i,
    );
    expect(csrfCookie === '' || /HttpOnly/i.test(csrfCookie)).toBe(true);

    const behindTls = await startTestConsole(database.handle, 'https://consola.example.co.mz');
    try {
      const tlsPerson = await signedInPerson(behindTls, 'viewer');
      const again = await logIn(new ConsoleClient(behindTls), tlsPerson);
      const secure = again.setCookies.find((line) => line.startsWith('__Host-console_session='));
      expect(secure).toMatch(/; Secure/i);
      expect(secure).toMatch(/; HttpOnly/i);
      expect(secure).toMatch(/; SameSite=Strict/i);
      expect(secure).toMatch(/; Path=\//i);
      expect(secure).not.toMatch(/Domain=/i);
      // The form of the public address is accepted; the listening address is not that origin.
      const crossed = await new ConsoleClient(behindTls, behindTls.url).submit('/login', '/login', {
        email: tlsPerson.email,
        password: PASSWORD,
        code: await nextCode(tlsPerson.secret),
      });
      expect(crossed.status).toBe(403);
    } finally {
      await behindTls.close();
    }
  });

  it('issue 40: every page sends a strict CSP (no inline script, no eval), frame-ancestors none, Referrer-Policy same-origin', async () => {
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/unsafe-inline|unsafe-eval/);
    for (const path of ['/login', '/companies', `/companies/${companyId}`, '/requests', '/nowhere']) {
      const answer = await support.client.get(path);
      expect(answer.headers.get('content-security-policy'), path).toBe(CONTENT_SECURITY_POLICY);
      expect(answer.headers.get('content-security-policy'), path).toContain("frame-ancestors 'none'");
      expect(answer.headers.get('content-security-policy'), path).toContain("script-src 'self'");
      expect(answer.headers.get('referrer-policy'), path).toBe('same-origin');
      // No inline script in any page: scripts come from /assets only.
      expect(answer.text.match(/<script(?![^>]*\bsrc="\/assets\/)[^>]*>/g) ?? [], path).toEqual([]);
    }
  });

  it("issue 40: a partner's stored <img onerror> and </script><script> in names and answers are shown as text", async () => {
    const pages = [
      await support.client.get('/companies'),
      await support.client.get(`/companies/${companyId}`),
      await support.client.get(`/companies?q=${encodeURIComponent('onerror')}`),
    ];
    for (const page of pages) {
      expect(page.status).toBe(200);
      expect(page.text).not.toContain(XSS_IMG);
      expect(page.text).not.toContain('<script>alert');
    }
    expect(pages[0]?.text).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(pages[1]?.text).toContain('&lt;/script&gt;&lt;script&gt;alert(2)&lt;/script&gt;');
  });

  it('issue 40: logins are throttled: after 10 failures the right password is refused for 15 minutes; unknown e-mail and wrong password answer alike', async () => {
    const person = await signedInPerson(consoleServer, 'viewer');
    const client = new ConsoleClient(consoleServer);
    const wrong = await client.submit('/login', '/login', {
      email: person.email,
      password: 'not the password',
      code: '123456',
    });
    const unknown = await client.submit('/login', '/login', {
      email: 'nobody-here@example.co.mz',
      password: 'not the password',
      code: '123456',
    });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    const message = (text: string) => /<p class="error" role="alert">([^<]*)</.exec(text)?.[1];
    expect(message(wrong.text)).toBe(message(unknown.text));
    for (let attempt = 2; attempt <= 10; attempt++) {
      const answer = await client.submit('/login', '/login', {
        email: person.email,
        password: `wrong ${attempt}`,
        code: '123456',
      });
      expect(answer.status).toBe(401);
    }
    const right = await logIn(client, person);
    expect(right.status).toBe(429);
    expect(client.cookies.has('console_session')).toBe(false);
    // 15 minutes later (the lock moved into the past) the right password opens a session again.
    await database.handle.db.execute(sql`update console_login_locks set until = now() - interval '1 second'`);
    const later = await logIn(client, person);
    expect(later.status).toBe(303);
  });

  it('issue 40: sessions end at once when the person is disabled, after 30 minutes idle, and after 12 hours', async () => {
    const idle = await signedInPerson(consoleServer, 'viewer');
    expect((await idle.client.get('/companies')).status).toBe(200);
    await database.handle.db
      .update(staffSessions)
      .set({ lastSeenAt: sql`now() - interval '31 minutes'` })
      .where(eq(staffSessions.staffId, idle.id));
    expect((await idle.client.get('/companies')).status).toBe(303);

    const old = await signedInPerson(consoleServer, 'viewer');
    await database.handle.db
      .update(staffSessions)
      .set({ createdAt: sql`now() - interval '12 hours 1 minute'` })
      .where(eq(staffSessions.staffId, old.id));
    expect((await old.client.get('/companies')).status).toBe(303);

    const disabled = await signedInPerson(consoleServer, 'viewer');
    expect((await disabled.client.get('/companies')).status).toBe(200);
    await executeOperation(consoleServer.setup, 'staff.disable', { id: disabled.id }, 'test');
    expect((await disabled.client.get('/companies')).status).toBe(303);
    // Nor can the disabled person sign in again.
    const again = await logIn(new ConsoleClient(consoleServer), disabled);
    expect(again.status).toBe(401);
  });
});
