// Issue 40, goal 8: "The CLI's messages and the console share one catalog of texts: Portuguese by
// default, English one switch away (`lang` on the page)". A refusal of an operation made of a
// catalog text (a staff account that does not exist) is shown in the page's language, over real
// HTTP on PGlite and PostgreSQL; nothing changes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedInPerson, startTestConsole, type TestConsole, type TestPerson } from '../helpers/console.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

describe('support console refusals', () => {
  let database: TestDatabase;
  let consoleServer: TestConsole;
  let admin: TestPerson;

  beforeAll(async () => {
    database = await createTestDatabase();
    consoleServer = await startTestConsole(database.handle);
    admin = await signedInPerson(consoleServer, 'admin');
  });
  afterAll(async () => {
    await consoleServer?.close();
    await database?.close();
  });

  it("issue 40, goal 8: an operation's refusal is told in the page's language, Portuguese by default", async () => {
    const missing = 999_999;
    const portuguese = await admin.client.submit('/staff', `/staff/${missing}/disable`, {});
    expect(portuguese.status).toBe(422);
    expect(portuguese.text).toContain(`a conta da equipa ${missing} não existe`);
    expect(portuguese.text).not.toContain('does not exist');

    expect((await admin.client.get('/staff?lang=en')).status).toBe(200);
    const english = await admin.client.submit('/staff', `/staff/${missing}/disable`, {});
    expect(english.status).toBe(422);
    expect(english.text).toContain(`staff account ${missing} does not exist`);
  });
});
