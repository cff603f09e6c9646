// issue 40, goal 8: the operator's tools speak Portuguese, the operations' refusals included. A
// refusal of an operation run on the database (a revoked key rolled; a webhook URL the model
// refuses, with whose setting decided it) is told in Portuguese by default, in English on request,
// with the same exit status. Through main() in this process, on PGlite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliStorage, commandJson, createCliStorage, runInProcess } from '../helpers/cli.js';

describe("issue 40: the operations' refusals in the operator's language (command line on a database)", () => {
  let storage: CliStorage;
  let companyId: number;

  beforeAll(async () => {
    storage = await createCliStorage();
    companyId = (
      await commandJson<{ id: number }>(['companies', 'create', '--name', 'Loja Recusas'], storage.env)
    ).id;
  });
  afterAll(() => storage?.close());

  it("the operator's tools speak Portuguese: a revoked key rolled is refused in Portuguese, in English with --lang en", async () => {
    const key = await commandJson<{ id: number }>(
      ['keys', 'create', '--company', String(companyId)],
      storage.env,
    );
    await commandJson(['keys', 'revoke', String(key.id)], storage.env);

    const portuguese = await runInProcess(['keys', 'roll', String(key.id)], storage.env);
    expect(portuguese.code).toBe(1);
    expect(portuguese.stderr).toContain(`a chave da API ${key.id} está revogada: crie uma chave nova`);
    expect(portuguese.stderr).not.toContain('revoked');
    const english = await runInProcess(['keys', 'roll', String(key.id), '--lang', 'en'], storage.env);
    expect(english.code).toBe(1);
    expect(english.stderr).toContain(`API key ${key.id} is revoked: create a new key instead`);
  });

  it("the operator's tools speak Portuguese: a webhook URL refused by the model is told in Portuguese, the setting's advice too", async () => {
    const argv = [
      'webhooks',
      'create',
      '--company',
      String(companyId),
      '--url',
      'http://erp.example.co.mz/hooks',
    ];
    const portuguese = await runInProcess(argv, { ...storage.env, WEBHOOK_ALLOW_HTTP: 'false' });
    expect(portuguese.code).toBe(1);
    expect(portuguese.stderr).toContain(
      'o URL tem de usar https (http simples só para loopback com WEBHOOK_ALLOW_HTTP=true) (o servidor entrega com a sua própria configuração: defina-a também para o servidor)',
    );
    const english = await runInProcess([...argv, '--lang', 'en'], {
      ...storage.env,
      WEBHOOK_ALLOW_HTTP: 'false',
    });
    expect(english.code).toBe(1);
    expect(english.stderr).toContain(
      'the URL must use https (plain http only to loopback with WEBHOOK_ALLOW_HTTP=true) (the server delivers with its own setting: set it for the server too)',
    );
  });
});
