// issue 40, goal 8: the operator's tools speak Portuguese, the operations' refusals included. An
// argument of the wrong form, read by the operation before any database is opened, is told in
// Portuguese by default and in English on request; --json carries the same kind and exit status.
// Run through main() in this process (the refusals of a run on a database: refusals.test.ts).
import { describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/cli.js';

const NO_DATABASE = { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' };

describe("issue 40: the operations' refusals in the operator's language (command line, in process)", () => {
  it("the operator's tools speak Portuguese: an argument the operation refuses is told in Portuguese, English with --lang en", async () => {
    const argv = ['requests', 'list', '--company', '1', '--since', 'ontem'];
    const portuguese = await runInProcess(argv, NO_DATABASE);
    expect(portuguese.code).toBe(2);
    expect(portuguese.stderr).toMatch(
      /^erro: since tem de ser uma data AAAA-MM-DD, um momento como 2026-11-22T09:30:00\+02:00 ou um tempo atrás como 30m, 6h, 2d; recebi "ontem"\n/,
    );
    const english = await runInProcess([...argv, '--lang', 'en'], NO_DATABASE);
    expect(english.code).toBe(2);
    expect(english.stderr).toMatch(/^error: since must be a date YYYY-MM-DD, .* got "ontem"\n/);
  });

  it("the operator's tools speak Portuguese: a label inside a refusal is Portuguese too; --json differs only in the message", async () => {
    const label = await runInProcess(['keys', 'revoke', 'x'], NO_DATABASE);
    expect(label.code).toBe(2);
    expect(label.stderr).toMatch(/^erro: o id da chave tem de ser um id inteiro positivo\n/);
    const kind = await runInProcess(
      ['movements', 'record', '--company', '1', '--kind', 'bonus', '--amount', '10'],
      NO_DATABASE,
    );
    expect(kind.stderr).toMatch(/^erro: kind tem de ser um de salary, supplier_payment\n/);

    const argv = [
      'staff',
      'create',
      '--email',
      'ana@example.co.mz',
      '--name',
      'Ana',
      '--role',
      'partner',
      '--json',
    ];
    const pt = await runInProcess(argv, NO_DATABASE);
    const en = await runInProcess([...argv, '--lang', 'en'], NO_DATABASE);
    expect([pt.code, en.code]).toEqual([2, 2]);
    const { message: ptMessage, ...ptError } = JSON.parse(pt.stderr).error;
    const { message: enMessage, ...enError } = JSON.parse(en.stderr).error;
    expect(ptError).toEqual(enError);
    expect([ptMessage, enMessage]).toEqual([
      'uma conta de parceiro vê uma empresa: indique --company ID',
      'a partner account sees one company: give --company ID',
    ]);
  });
});
