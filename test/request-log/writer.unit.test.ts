// The request log when the database cannot take its records: the buffer stays bounded, what does
// not fit or cannot be written is dropped and counted, and nothing waits (no test database here:
// the database is one that refuses connections).
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client.js';
import { metrics } from '../../src/metrics/registry.js';
import { createRequestLog, type RequestRecord } from '../../src/request-log/writer.js';

async function counted(outcome: 'written' | 'dropped'): Promise<number> {
  const line = (await metrics.text())
    .split('\n')
    .find((text) => text.startsWith(`invoicing_request_log_records_total{outcome="${outcome}"}`));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

const record = (n: number): RequestRecord => ({
  at: Date.now(),
  companyId: 1,
  apiKeyId: 1,
  method: 'GET',
  route: '/api/v1/partner/ping',
  status: 200,
  errorCode: null,
  requestId: `req_${String(n).padStart(24, '0')}`,
  idempotencyKey: null,
  replayed: false,
  durationUs: 100,
  clientIp: '127.0.0.1',
});

describe('request log without a database', () => {
  const down = openDatabase({ kind: 'postgres', url: 'postgres://nobody@127.0.0.1:1/none' });
  afterAll(async () => (await down).close());

  it('keeps at most 20,000 records waiting, drops and counts the rest and what the database refuses', async () => {
    const { db } = await down;
    const warnings: string[] = [];
    const log = createRequestLog(db, {
      prune: false,
      log: { warn: (_o, message) => warnings.push(message) },
    });
    const [droppedBefore, writtenBefore] = [await counted('dropped'), await counted('written')];
    const started = Date.now();
    for (let n = 0; n < 20_500; n++) log.record(record(n));
    // Taking a record never waits, whatever the database does.
    expect(Date.now() - started).toBeLessThan(5000);
    expect((await counted('dropped')) - droppedBefore).toBe(500);
    await log.flush();
    expect((await counted('dropped')) - droppedBefore).toBe(20_500);
    expect((await counted('written')) - writtenBefore).toBe(0);
    // Said once, not once per batch.
    expect(warnings).toEqual(['request log: records dropped, the database did not take them']);
    await log.close();
  });
});
