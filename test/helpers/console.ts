// The support console in a test: its server on port 0 over a test database, people made with the
// CLI's operation and set up through the real setup page (password and TOTP computed here with
// otplib), and a client that keeps cookies like a browser and sends forms with their `_csrf`.
import { eq } from 'drizzle-orm';
import { generate } from 'otplib';
import type { ConsoleConfig } from '../../src/config.js';
import { DEFAULT_WEBHOOK_RETRY_SCHEDULE, parseRetrySchedule } from '../../src/config.js';
import { secretBox } from '../../src/console/secret-box.js';
import { buildConsole } from '../../src/console/server.js';
import type { DatabaseHandle } from '../../src/db/client.js';
import { staffAccounts } from '../../src/db/schema.js';
import { executeOperation, type OperationSetup } from '../../src/operations/index.js';

export const TEST_CONSOLE_KEY = 'a'.repeat(64);
export const PASSWORD = 'uma frase longa e secreta';

export function operationSetup(handle: DatabaseHandle): OperationSetup {
  return {
    handle,
    timeZone: 'Africa/Maputo',
    webhooks: {
      retrySchedule: parseRetrySchedule(DEFAULT_WEBHOOK_RETRY_SCHEDULE),
      allowHttp: true,
      allowPrivate: true,
    },
    runsIn: 'server',
  };
}

export interface TestConsole {
  url: string;
  origin: string;
  handle: DatabaseHandle;
  setup: OperationSetup;
  close(): Promise<void>;
}

/** A console on 127.0.0.1:0; `publicUrl` plays CONSOLE_URL (a proxy in front: https). */
export async function startTestConsole(handle: DatabaseHandle, publicUrl?: string): Promise<TestConsole> {
  let listening: string | null = null;
  const config: ConsoleConfig = {
    port: 0,
    host: '127.0.0.1',
    url: publicUrl ?? 'http://127.0.0.1:3002',
    urlConfigured: publicUrl !== undefined,
    secretKey: TEST_CONSOLE_KEY,
  };
  const setup = operationSetup(handle);
  const app = await buildConsole({
    handle,
    setup,
    config,
    box: secretBox(TEST_CONSOLE_KEY, 'CONSOLE_SECRET_KEY'),
    listeningUrl: () => listening,
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  listening = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return {
    url: listening,
    origin: publicUrl ? new URL(publicUrl).origin : listening,
    handle,
    setup,
    close: () => app.close(),
  };
}

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  location: string | null;
  setCookies: string[];
}

/** A browser's cookie jar and forms, over real HTTP. */
export class ConsoleClient {
  readonly cookies = new Map<string, string>();
  constructor(
    readonly console: TestConsole,
    private readonly origin = console.origin,
  ) {}

  private cookieHeader(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  async request(
    method: 'GET' | 'POST',
    path: string,
    init: { form?: Record<string, string>; headers?: Record<string, string> } = {},
  ): Promise<Answer> {
    const response = await fetch(`${this.console.url}${path}`, {
      method,
      redirect: 'manual',
      headers: {
        ...(this.cookies.size ? { cookie: this.cookieHeader() } : {}),
        ...(init.form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        ...init.headers,
      },
      ...(init.form ? { body: new URLSearchParams(init.form).toString() } : {}),
      signal: AbortSignal.timeout(20_000),
    });
    const setCookies = response.headers.getSetCookie();
    for (const line of setCookies) {
      const [pair = ''] = line.split(';');
      const index = pair.indexOf('=');
      const name = pair.slice(0, index);
      const value = pair.slice(index + 1);
      if (value === '' || /expires=Thu, 01 Jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return {
      status: response.status,
      headers: response.headers,
      text: await response.text(),
      location: response.headers.get('location'),
      setCookies,
    };
  }

  get(path: string): Promise<Answer> {
    return this.request('GET', path);
  }

  /** The `_csrf` of the page's first form. */
  static csrfOf(html: string): string {
    const match = /name="_csrf" value="([^"]+)"/.exec(html);
    if (!match?.[1]) throw new Error('no _csrf on the page');
    return match[1];
  }

  /** A form POST as a browser sends it from the page `from` (its token, this console's Origin). */
  async submit(
    from: string,
    action: string,
    fields: Record<string, string>,
    options: { origin?: string | null; csrf?: string | null } = {},
  ): Promise<Answer> {
    const page = await this.get(from);
    const csrf = options.csrf === undefined ? ConsoleClient.csrfOf(page.text) : options.csrf;
    const origin = options.origin === undefined ? this.origin : options.origin;
    return this.request('POST', action, {
      form: { ...(csrf === null ? {} : { _csrf: csrf }), ...fields },
      headers: origin === null ? {} : { origin },
    });
  }
}

/** A TOTP code of the step after the current one (the current may have been used by the setup). */
export function nextCode(secret: string, steps = 1): Promise<string> {
  return generate({ secret, epoch: Math.floor(Date.now() / 1000) + 30 * steps });
}

/**
 * Forgets the last TOTP step the person used, so that a test may sign the same person in again
 * within one 30-second step (the replay protection has its own test).
 */
export async function forgetUsedCode(testConsole: TestConsole, staffId: number): Promise<void> {
  await testConsole.handle.db
    .update(staffAccounts)
    .set({ totpLastStep: null })
    .where(eq(staffAccounts.id, staffId));
}

/** Signs the person in on `client` (a fresh login form first), the current step's code reused. */
export async function logIn(
  client: ConsoleClient,
  person: { id: number; email: string; secret: string },
  plantedSession?: string,
): Promise<Answer> {
  await forgetUsedCode(client.console, person.id);
  const form = await new ConsoleClient(client.console).get('/login');
  const csrfCookie = [...form.setCookies]
    .map((line) => line.split(';')[0] ?? '')
    .find((pair) => pair.includes('console_csrf='));
  if (csrfCookie) {
    const [name = '', value = ''] = csrfCookie.split('=');
    client.cookies.set(name, value);
  }
  if (plantedSession) client.cookies.set('console_session', plantedSession);
  return client.request('POST', '/login', {
    form: {
      _csrf: ConsoleClient.csrfOf(form.text),
      email: person.email,
      password: PASSWORD,
      code: await nextCode(person.secret),
    },
    headers: { origin: client.console.origin },
  });
}

export interface TestPerson {
  id: number;
  email: string;
  secret: string;
  client: ConsoleClient;
}

let people = 0;

/** Creates the person (staff create), sets the account up on its page, and signs in. */
export async function signedInPerson(
  testConsole: TestConsole,
  role: 'admin' | 'support' | 'viewer' | 'partner',
  companyId?: number,
): Promise<TestPerson> {
  people += 1;
  const email = `${role}${people}-${Date.now()}@example.co.mz`;
  const made = await executeOperation(
    testConsole.setup,
    'staff.create',
    { email, name: `Pessoa ${people}`, role, ...(companyId ? { company: companyId } : {}) },
    'test',
  );
  const client = new ConsoleClient(testConsole);
  const setupPage = await client.get(made.setup_path);
  const secret = /id="totp-secret" class="secret">([A-Z2-7]+)</.exec(setupPage.text)?.[1];
  if (!secret) throw new Error(`no TOTP secret on the setup page (${setupPage.status})`);
  const done = await client.submit(made.setup_path, made.setup_path, {
    password: PASSWORD,
    confirm: PASSWORD,
    code: await generate({ secret }),
  });
  if (done.status !== 200) throw new Error(`setup answered ${done.status}`);
  const login = await client.submit('/login', '/login', {
    email,
    password: PASSWORD,
    code: await nextCode(secret),
  });
  if (login.status !== 303) throw new Error(`login answered ${login.status}: ${login.text.slice(0, 300)}`);
  return { id: made.id, email, secret, client };
}
