// issue 40, goal 8: the operator's tools speak Portuguese, through the real executable on a
// database: a command's result and serve's start banner are Portuguese by default; `--lang en` or
// INVOICING_LANG=en switch to English, the flag winning; LANG=en_US.UTF-8 alone does not switch;
// `--json` is the same in both languages. (Help and usage errors in process:
// test/cli/language.unit.test.ts.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CliStorage,
  createCliStorage,
  PROCESS_TEST_TIMEOUT_MS,
  runCli,
  startServe,
} from '../helpers/cli.js';

describe("issue 40: the operator's tools speak Portuguese (the real executable)", {
  timeout: PROCESS_TEST_TIMEOUT_MS,
}, () => {
  let storage: CliStorage;
  beforeAll(async () => {
    storage = await createCliStorage();
  });
  afterAll(() => storage.close());

  it("the operator's tools speak Portuguese: serve's start banner is Portuguese by default, LANG=en_US.UTF-8 alone does not switch", async () => {
    // A first start without a demo: the banner says how to create a company, in Portuguese.
    const server = await startServe(
      { ...storage.env, LANG: 'en_US.UTF-8', LC_ALL: 'en_US.UTF-8' },
      { json: false },
    );
    try {
      expect(server.stdout()).toContain(`API de parceiros v1 a escutar em ${server.apiBaseUrl}`);
      expect(server.stdout()).toContain('Ainda não há empresas. Para criar uma e a sua chave:');
    } finally {
      await server.stop();
    }
  });

  it("the operator's tools speak Portuguese: a command's result is Portuguese by default; --lang en and INVOICING_LANG=en switch to English, the flag wins", async () => {
    const env = { ...storage.env, LANG: 'en_US.UTF-8' };
    const pt = await runCli(['companies', 'create', '--name', 'Loja Um'], env);
    expect(pt.code, pt.stderr).toBe(0);
    expect(pt.stdout).toMatch(/^Empresa \d+ criada: Loja Um\.\nA API de parceiros está desligada/);

    const flag = await runCli(['companies', 'create', '--name', 'Loja Dois', '--lang', 'en'], env);
    expect(flag.stdout).toMatch(/^Company \d+ created: Loja Dois\.\nThe partner API is disabled/);

    const variable = await runCli(['companies', 'list'], { ...env, INVOICING_LANG: 'en' });
    expect(variable.stdout).toMatch(/^ {2}ID +NAME +NUIT +PARTNER API\n/);

    const flagWins = await runCli(['companies', 'list', '--lang', 'pt'], { ...env, INVOICING_LANG: 'en' });
    expect(flagWins.stdout).toMatch(/^ {2}ID +NOME +NUIT +API DE PARCEIROS\n/);
    // The same rows in both: only the headers are translated.
    expect(flagWins.stdout.split('\n').slice(1)).toEqual(variable.stdout.split('\n').slice(1));
  });
});
