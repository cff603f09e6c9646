// issue 40, goal 8: the operator's tools speak Portuguese. The command line's texts are Portuguese
// by default; `--lang en` or INVOICING_LANG=en switch to English, the flag winning over the
// variable; LANG and LC_* never switch (on a server they say how the machine was installed). Only
// texts change: --json, codes and exit statuses are the same. Run through main() in this process;
// the real executable on a database is test/cli/language.process.test.ts.
import { describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/cli.js';

const NO_DATABASE = { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' };
const PT = /^Uso: bin\/invoicing keys create --company ID/;
const EN = /^Usage: bin\/invoicing keys create --company ID/;

const help = (args: string[], env: Record<string, string> = {}) =>
  runInProcess(['keys', 'create', '--help', ...args], { ...NO_DATABASE, ...env });

describe("issue 40: the operator's tools speak Portuguese (command line, in process)", () => {
  it("the operator's tools speak Portuguese: by default, help, usage errors and failures are Portuguese", async () => {
    const shown = await help([]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(PT);
    expect(shown.stdout).toContain('Criar uma chave da API para uma empresa');
    const general = await runInProcess(['--help'], NO_DATABASE);
    expect(general.stdout).toMatch(/^Uso: bin\/invoicing <comando>/);
    expect(general.stdout).toContain('--lang L');

    const wrong = await runInProcess(['keys', 'create'], NO_DATABASE);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/^erro: falta --company\nuso: bin\/invoicing keys create --company ID/);
    expect(wrong.stderr).toContain('ver: bin/invoicing keys create --help');
    const unreachable = await runInProcess(['companies', 'list'], NO_DATABASE);
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toMatch(/^erro: não foi possível chegar à base de dados: /);
  });

  it("the operator's tools speak Portuguese: --lang en and INVOICING_LANG=en switch to English", async () => {
    for (const [args, env] of [
      [['--lang', 'en'], {}],
      [['--lang=en'], {}],
      [[], { INVOICING_LANG: 'en' }],
    ] as const) {
      const shown = await help([...args], env);
      expect(shown.code, args.join(' ')).toBe(0);
      expect(shown.stdout, args.join(' ')).toMatch(EN);
      expect(shown.stdout).toContain('Create an API key for a company');
    }
    // The flag goes anywhere on the line, before the command's words too.
    const first = await runInProcess(['--lang', 'en', 'keys', 'create'], NO_DATABASE);
    expect(first.code).toBe(2);
    expect(first.stderr).toMatch(/^error: missing --company\n/);
    const group = await runInProcess(['keys', '--lang', 'en'], NO_DATABASE);
    expect(group.stdout).toMatch(/^Usage: bin\/invoicing keys <command>/);
  });

  it("the operator's tools speak Portuguese: the flag wins over the variable", async () => {
    expect((await help(['--lang', 'pt'], { INVOICING_LANG: 'en' })).stdout).toMatch(PT);
    expect((await help(['--lang', 'en'], { INVOICING_LANG: 'pt' })).stdout).toMatch(EN);
  });

  it("the operator's tools speak Portuguese: LANG=en_US.UTF-8 (or LC_ALL, LC_MESSAGES) alone does not switch", async () => {
    const shown = await help([], { LANG: 'en_US.UTF-8', LC_ALL: 'en_US.UTF-8', LC_MESSAGES: 'en_US.UTF-8' });
    expect(shown.stdout).toMatch(PT);
  });

  it("the operator's tools speak Portuguese: an unknown language is wrong usage (exit 2), from the flag or the variable", async () => {
    const flag = await help(['--lang', 'fr']);
    expect(flag.code).toBe(2);
    expect(flag.stdout).toBe('');
    expect(flag.stderr).toMatch(/^erro: --lang fr: língua desconhecida \(conhecidas: pt, en\)\n/);
    const variable = await help([], { INVOICING_LANG: 'english' });
    expect(variable.code).toBe(2);
    expect(variable.stderr).toMatch(/^erro: INVOICING_LANG english: língua desconhecida/);
    // Told in the variable's language when the flag is the wrong one.
    const told = await help(['--lang', 'xx'], { INVOICING_LANG: 'en' });
    expect(told.stderr).toMatch(/^error: --lang xx: unknown language \(known: pt, en\)\n/);
    const json = await runInProcess(['companies', 'list', '--lang', 'fr', '--json'], NO_DATABASE);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stderr)).toMatchObject({ error: { kind: 'usage', exit_status: 2 } });
  });

  it("the operator's tools speak Portuguese: what machines read is the same in both languages", async () => {
    const pt = await runInProcess(['keys', 'create', '--json'], NO_DATABASE);
    const en = await runInProcess(['keys', 'create', '--json', '--lang', 'en'], NO_DATABASE);
    expect([pt.code, en.code]).toEqual([2, 2]);
    const { message: ptMessage, ...ptError } = JSON.parse(pt.stderr).error;
    const { message: enMessage, ...enError } = JSON.parse(en.stderr).error;
    expect(ptError).toEqual(enError);
    expect([ptMessage, enMessage]).toEqual(['falta --company', 'missing --company']);
    const version = await runInProcess(['--version', '--json'], NO_DATABASE);
    expect(JSON.parse(version.stdout)).toEqual(
      JSON.parse((await runInProcess(['--version', '--json', '--lang', 'en'], NO_DATABASE)).stdout),
    );
  });
});
