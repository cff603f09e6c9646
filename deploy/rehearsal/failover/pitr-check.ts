// The point-in-time restore checked: the newest WAL archived, the restore to the target into a
// separate cluster (pitr.ts), the writes it holds against those acknowledged before the target and
// sent after it, and a fresh instance on it serving the load's keys.
import path from 'node:path';
import { PartnerApi, PartnerApiError } from '../../../clients/typescript/src/index.js';
import { createInstance } from '../lib/instances.js';
import type { TrackedWrite } from '../lib/load.js';
import { say, seconds } from '../lib/progress.js';
import { leaderOf, pgbackrest, type RunAs } from './cluster.js';
import { pitrExact } from './judge.js';
import { restoreToTime, targetTime } from './pitr.js';
import { type FailoverContext, markerCounts, PORTS, REDIS_URL, type Setup, status } from './setup.js';

export interface PitrVerdict {
  met: boolean;
  detail: string;
  writesCell: string;
  goal: string;
  notes: string[];
}

export async function restoreAndCheck(
  setup: Setup,
  context: FailoverContext,
  writes: TrackedWrite[],
  /** The target, on progress.ts's clock, and the same moment on the wall clock. */
  target: number,
  targetWall: number,
  user: RunAs,
): Promise<PitrVerdict> {
  const { logDir, stops, runId } = context;
  const notes: string[] = [];
  try {
    const leader = await leaderOf(setup.nodes);
    if (!leader) throw new Error('no leader to archive the newest WAL');
    // Every WAL segment up to now in the repository (check switches to a new segment and waits).
    await pgbackrest(user, leader, ['check']);
    say(`PITR: restoring to ${targetTime(targetWall)} into a new data directory...`);
    const restored = await restoreToTime({
      user,
      node: leader,
      runDir: setup.runDir,
      port: PORTS.restoredPg,
      target: targetTime(targetWall),
      superuserUrl: (port) => setup.superuserUrl(port),
      logFile: path.join(logDir, 'postgres-restored.log'),
      certificates: setup.certificates,
    });
    stops.push(() => restored.stop());
    const counts = await markerCounts(setup.superuserUrl(PORTS.restoredPg, 'invoicing'), runId);
    const before = writes.filter(
      (w) => w.outcome === 'created' && w.ackedAt !== undefined && w.ackedAt < target,
    );
    const after = writes.filter((w) => w.sentAt !== undefined && w.sentAt > target);
    const straddling = writes.filter((w) => !before.includes(w) && !after.includes(w));
    const beforeOnce = before.filter((w) => counts.get(w.marker) === 1).length;
    const afterFound = after.filter((w) => (counts.get(w.marker) ?? 0) > 0).length;
    const straddlingBad = straddling.filter((w) => (counts.get(w.marker) ?? 0) > 1).length;
    const exact = pitrExact({
      before: before.length,
      beforeOnce,
      after: after.length,
      afterFound,
      straddling: straddling.length,
      straddlingTwice: straddlingBad,
    });

    // The restored database served by a fresh instance with the keys the load used.
    const restoredUrl = setup.databaseUrl.replace(
      `127.0.0.1:${PORTS.pgProxy}`,
      `127.0.0.1:${PORTS.restoredPg}`,
    );
    const instance = createInstance({
      name: 'invoicing-restored',
      port: PORTS.restoredApi.port,
      opsPort: PORTS.restoredApi.ops,
      databaseUrl: restoredUrl,
      redisUrl: REDIS_URL,
      drainMs: 0,
      logFile: path.join(logDir, 'invoicing-restored.log'),
    });
    await instance.start();
    stops.push(async () => {
      await instance.stop();
    });
    const base = `http://127.0.0.1:${PORTS.restoredApi.port}/api/v1/partner`;
    const problems: string[] = [];
    for (const { companyId, key } of setup.keys) {
      const api = new PartnerApi({ apiKey: key, baseUrl: base, maxRetries: 0 });
      try {
        await api.ping();
      } catch (error) {
        problems.push(`key of company ${companyId}: ${(error as Error).message}`);
        continue;
      }
      const get = (w: TrackedWrite) =>
        w.kind === 'customer'
          ? api.customers.get(w.id!)
          : w.kind === 'product'
            ? api.products.get(w.id!)
            : api.invoices.get(w.id!);
      for (const w of before.filter((x) => x.companyId === companyId && x.id !== undefined).slice(-5)) {
        const record = (await get(w).catch((error: Error) => error)) as
          | { name?: string; reference?: string }
          | Error;
        if (record instanceof Error) problems.push(`${w.marker}: ${record.message}`);
        else if ((record.name ?? record.reference) !== w.marker) problems.push(`${w.marker}: another record`);
      }
      for (const w of after.filter((x) => x.companyId === companyId && x.id !== undefined).slice(0, 5)) {
        const answer = await get(w).then(
          () => 'found',
          (error: unknown) => (error instanceof PartnerApiError ? error.status : 'error'),
        );
        if (answer !== 404) problems.push(`${w.marker} (after the target): ${answer}`);
      }
    }
    const revokedBack =
      (await status(`http://127.0.0.1:${PORTS.restoredApi.port}`, setup.revocable.key)) === 200;
    if (revokedBack)
      notes.push(
        'the key revoked after the PITR target is valid again in the restored copy: after a restore, revoke again every key revoked after the target (deploy/README.md says so)',
      );
    const served = problems.length === 0;
    const writesCell = `before the target: ${before.length} acknowledged / ${beforeOnce} found once; after: ${after.length} sent / ${afterFound} found; ${straddling.length} in flight at the target (${straddling.length - straddlingBad} once or absent)`;
    return {
      met: exact && served,
      detail: `pgBackRest restore ${seconds(restored.restoreMs)}, replay to the target and promote ${seconds(restored.recoverMs)}; the API on it: ${served ? 'every key answers, records as at the target' : problems.slice(0, 3).join('; ')}`,
      writesCell,
      goal: `${exact ? 'exact' : 'NOT exact'}: ${writesCell}; API ${served ? `served it with the ${setup.keys.length} keys` : problems.slice(0, 5).join('; ')}`,
      notes,
    };
  } catch (error) {
    return {
      met: false,
      detail: `FAILED: ${(error as Error).message}`,
      writesCell: '',
      goal: (error as Error).message,
      notes,
    };
  }
}
