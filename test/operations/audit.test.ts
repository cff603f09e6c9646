// The audit trail: every operator command that changes something leaves one record in the same
// transaction as the change (when, command, who, company, object, outcome), refusals are recorded
// after their rollback, reads and usage mistakes are not, and no secret ever enters it.
import { count, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog, companies, payments } from '../../src/db/schema.js';
import type { AuditEntry } from '../../src/operations/audit.js';
import type { OperationSetup } from '../../src/operations/define.js';
import { ArgumentError, OperationError } from '../../src/operations/errors.js';
import { executeOperation, type OperationName } from '../../src/operations/index.js';
import { operationSetup } from '../helpers/context.js';
import { createTestDatabase, type TestDatabase, testStorage } from '../helpers/database.js';

const ACTOR = 'maria.operadora';

describe(`audit trail of operator commands (${testStorage()})`, () => {
  let database: TestDatabase;
  let setup: OperationSetup;
  // biome-ignore lint/suspicious/noExplicitAny: operation results, checked field by field
  const run = (name: OperationName, args: Record<string, unknown> = {}, actor = ACTOR): Promise<any> =>
    executeOperation(setup, name, args, actor);
  const entries = async (): Promise<AuditEntry[]> => (await run('audit.list', { limit: '1000' })).entries;
  const last = async (): Promise<AuditEntry> => (await entries()).at(-1) as AuditEntry;
  const auditCount = async () => (await setup.handle.db.select({ n: count() }).from(auditLog))[0]?.n ?? 0;

  beforeAll(async () => {
    database = await createTestDatabase();
    setup = operationSetup(database.handle, { timeZone: 'Africa/Maputo' });
  });
  afterAll(() => database?.close());

  it('every changing command writes one record: when, command, who, company, object, outcome', async () => {
    const expectLast = async (expected: Partial<AuditEntry>) => {
      const entry = await last();
      expect(entry).toMatchObject({ actor: 'maria.operadora', outcome: 'ok', ...expected });
      expect(entry.at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+02:00$/);
      return entry;
    };

    const company = await run('companies.create', { name: 'Auditada, Lda', nuit: '400999111' });
    const created = await expectLast({
      command: 'companies create',
      company_id: company.id,
      object_type: 'company',
      object_id: company.id,
    });
    expect(created.detail).toEqual({ args: { name: 'Auditada, Lda', nuit: '400999111' } });

    await run('companies.enable-api', { id: String(company.id) });
    await expectLast({ command: 'companies enable-api', company_id: company.id, object_id: company.id });
    await run('companies.disable-api', { id: String(company.id) });
    await expectLast({ command: 'companies disable-api', company_id: company.id, object_id: company.id });

    const key = await run('keys.create', { company: String(company.id), days: '30' });
    await expectLast({
      command: 'keys create',
      company_id: company.id,
      object_type: 'api_key',
      object_id: key.id,
    });
    await run('keys.revoke', { id: String(key.id) });
    await expectLast({
      command: 'keys revoke',
      company_id: company.id,
      object_type: 'api_key',
      object_id: key.id,
    });

    const tax = await run('taxes.create', { company: String(company.id), name: 'IVA 16%', rate: '16' });
    await expectLast({
      command: 'taxes create',
      company_id: company.id,
      object_type: 'tax',
      object_id: tax.id,
    });
    const globalTax = await run('taxes.create', { global: true, name: 'Isento', rate: '0' });
    await expectLast({
      command: 'taxes create',
      company_id: null,
      object_type: 'tax',
      object_id: globalTax.id,
    });

    const customer = await run('customers.create', { global: true, name: 'Balcão Auditado' });
    await expectLast({
      command: 'customers create',
      company_id: null,
      object_type: 'customer',
      object_id: customer.id,
    });

    const demo = await run('demo');
    await expectLast({ command: 'demo', company_id: demo.id, object_type: 'company', object_id: demo.id });

    const drafts = (await run('invoices.list', { company: String(demo.id), status: 'draft' })).invoices;
    expect(drafts.length).toBeGreaterThanOrEqual(2);
    const [toIssue, toCancel] = drafts as { id: number; grand_total: string }[];
    await run('invoices.issue', { id: String(toIssue?.id) });
    await expectLast({
      command: 'invoices issue',
      company_id: demo.id,
      object_type: 'invoice',
      object_id: toIssue?.id,
    });
    const receipt = await run('payments.record', { invoice: String(toIssue?.id), amount: '10.00' });
    await expectLast({
      command: 'payments record',
      company_id: demo.id,
      object_type: 'payment',
      object_id: receipt.id,
    });
    await run('invoices.cancel', { id: String(toCancel?.id) });
    await expectLast({
      command: 'invoices cancel',
      company_id: demo.id,
      object_type: 'invoice',
      object_id: toCancel?.id,
    });
    const movement = await run('movements.record', {
      company: String(company.id),
      kind: 'salary',
      amount: '18500',
    });
    await expectLast({
      command: 'movements record',
      company_id: company.id,
      object_type: 'payment',
      object_id: movement.id,
    });

    // Without --actor the command line names the OS user (test/cli/operator.process.test.ts).
  });

  it('refusals are recorded with their message, after their rollback; nothing changed', async () => {
    const before = (await setup.handle.db.select({ n: count() }).from(payments))[0]?.n;
    const demo = await run('demo');
    const issued = (await run('invoices.list', { company: String(demo.id), status: 'unpaid' })).invoices[0];
    await expect(run('invoices.issue', { id: String(issued.id) })).rejects.toThrow(OperationError);
    expect(await last()).toMatchObject({
      command: 'invoices issue',
      company_id: demo.id,
      object_type: 'invoice',
      object_id: issued.id,
      outcome: 'refused',
      detail: {
        args: { id: String(issued.id) },
        message: `invoice ${issued.id} is unpaid: only a draft can be issued`,
      },
    });
    const paymentsNow = (await setup.handle.db.select({ n: count() }).from(payments))[0]?.n;
    await expect(
      run('payments.record', { invoice: String(issued.id), amount: '99999999.00' }),
    ).rejects.toThrow(/exceeds what remains to pay/);
    expect(await last()).toMatchObject({
      command: 'payments record',
      outcome: 'refused',
      company_id: demo.id,
    });
    expect((await setup.handle.db.select({ n: count() }).from(payments))[0]?.n).toBe(paymentsNow);
    expect(paymentsNow).toBeGreaterThan(before ?? 0);

    await expect(run('keys.create', { company: '999999' })).rejects.toThrow('company 999999 does not exist');
    expect(await last()).toMatchObject({
      command: 'keys create',
      company_id: 999999,
      object_type: 'api_key',
      object_id: null,
      outcome: 'refused',
    });
  });

  it('reads and usage mistakes (exit status 2) leave no record', async () => {
    const before = await auditCount();
    const company = (await run('companies.list')).companies[0].id;
    await run('keys.list', { company: String(company) });
    await run('invoices.list', { company: String(company) });
    await run('customers.list', { company: String(company) });
    await run('pos.pending', { company: String(company) });
    await run('audit.list', {});
    await expect(run('invoices.issue', { id: 'abc' })).rejects.toThrow(ArgumentError);
    await expect(run('keys.create', { company: String(company), days: '400' })).rejects.toThrow(
      ArgumentError,
    );
    expect(await auditCount()).toBe(before);
  });

  it('is written in the same transaction: when the record cannot be written, the change is undone', async () => {
    const companiesBefore = (await setup.handle.db.select({ n: count() }).from(companies))[0]?.n;
    await setup.handle.db.execute(sql`alter table audit_log rename to audit_log_away`);
    try {
      await expect(run('companies.create', { name: 'Nunca Criada' })).rejects.toThrow();
    } finally {
      await setup.handle.db.execute(sql`alter table audit_log_away rename to audit_log`);
    }
    expect((await setup.handle.db.select({ n: count() }).from(companies))[0]?.n).toBe(companiesBefore);
    const named = await setup.handle.db.select().from(companies).where(eq(companies.name, 'Nunca Criada'));
    expect(named).toEqual([]);
  });

  it('never holds a secret: not the new keys, not an argument named like one', async () => {
    const company = await run('companies.create', { name: 'Segredos, Lda' });
    const key = await run('keys.create', { company: String(company.id) });
    const demo = await run('demo');
    await run('companies.create', {
      name: 'Com segredo',
      secret: 'hunter2',
      api_key: 'svc_sk_live_x',
      token: 't0k',
    });
    const dump = JSON.stringify(await setup.handle.db.select().from(auditLog));
    for (const secret of [key.key, demo.live_key.key, demo.test_key.key, 'hunter2', 'svc_sk_live_x', 't0k']) {
      expect(dump).not.toContain(secret);
    }
    expect((await last()).detail).toEqual({
      args: {
        name: 'Com segredo',
        secret: '[not recorded]',
        api_key: '[not recorded]',
        token: '[not recorded]',
      },
    });
  });

  it('audit.list: by company, since a day (midnight in the time zone) or a moment, latest N oldest first', async () => {
    const company = await run('companies.create', { name: 'Filtrada, Lda' });
    await run('companies.enable-api', { id: String(company.id) });
    const mine = (await run('audit.list', { company: String(company.id) })).entries as AuditEntry[];
    expect(mine.map((e) => e.command)).toEqual(['companies create', 'companies enable-api']);

    const all = await entries();
    const today = all.at(-1)?.at.slice(0, 10) as string;
    expect((await run('audit.list', { since: today, limit: '1000' })).entries).toHaveLength(all.length);
    expect((await run('audit.list', { since: '2999-01-01' })).entries).toEqual([]);
    const lastTwo = (await run('audit.list', { limit: '2' })).entries as AuditEntry[];
    expect(lastTwo.map((e) => e.id)).toEqual(all.slice(-2).map((e) => e.id));
    // A moment as the list shows it (to the millisecond): every entry shown at or after it, which
    // on a fast machine includes the `companies create` of the same millisecond.
    const moment = mine[1]?.at as string;
    const sinceMoment = (await run('audit.list', { since: moment })).entries as AuditEntry[];
    const shownAtOrAfter = all.filter((e) => Date.parse(e.at) >= Date.parse(moment)).map((e) => e.id);
    expect(sinceMoment.map((e) => e.id)).toEqual(shownAtOrAfter);
    expect(sinceMoment.at(-1)?.id).toBe(mine[1]?.id);
    // Tokyo: the same moments, shown at +09:00.
    const tokyo = await executeOperation(
      { ...setup, timeZone: 'Asia/Tokyo' },
      'audit.list',
      { limit: '1' },
      ACTOR,
    );
    expect(tokyo.entries[0]?.at).toMatch(/\+09:00$/);
    await expect(run('audit.list', { since: 'yesterday' })).rejects.toThrow(ArgumentError);
  });
});
