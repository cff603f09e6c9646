// The failover rehearsal's phases, each an action run by the frame's Timeline under the load
// (run.ts): an incremental backup and the PITR target; the leader's machine lost; a key revoked;
// the old leader back (pg_rewind); a planned switchover. Each returns what happened (the table's
// "what happened") and writes what the goals judge into `Seen`. And the outsider's attempts tried
// before the load (members-only.ts).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { invoicing } from '../lib/checks.js';
import { waitUntil } from '../lib/processes.js';
import { now, seconds } from '../lib/progress.js';
import {
  healthy,
  leaderOf,
  members,
  type PatroniNode,
  pgbackrest,
  type RunAs,
  switchover,
} from './cluster.js';
import { type Attempt, judgeRejoin, type Rejoin } from './judge.js';
import { etcdMember, etcdOutsiders, patroniOutsiders, postgresAttempts } from './members-only.js';
import { targetTime } from './pitr.js';
import { PORTS, REJOIN_BOUND_MS, type Setup, status } from './setup.js';

/** What the phases saw, for the goals. */
export interface Seen {
  /** The PITR target on progress.ts's clock. */
  target: number;
  oldLeader: PatroniNode | null;
  newLeader: PatroniNode | null;
  /** ms from the revoke's return to the first request the last instance refused (NaN: never). */
  refusedIn: number;
  rejoin: Rejoin;
}

export function seen(): Seen {
  const rejoin = { role: null, state: null, ms: 0, log: '' };
  return { target: 0, oldLeader: null, newLeader: null, refusedIn: Number.NaN, rejoin };
}

/** Issue 38: what someone who reaches the ports but holds no key of the cluster's CA can do. */
export async function tryAsOutsider(setup: Setup): Promise<{ outsiders: Attempt[]; insiders: Attempt[] }> {
  const leader = await leaderOf(setup.nodes);
  if (!leader) throw new Error('no leader to try the cluster on');
  const postgres = await postgresAttempts({
    password: setup.superuserPassword,
    proxyPort: PORTS.pgProxy,
    leader,
    ca: setup.certificates.ca,
  });
  return {
    outsiders: [
      ...(await etcdOutsiders(setup.etcd, setup.certificates.ca)),
      ...postgres.outsiders,
      ...(await patroniOutsiders(leader, setup.restapiPassword)),
    ],
    insiders: [await etcdMember(setup.etcd, leader), ...postgres.members],
  };
}

/** On the backup host, as its cron line runs it; the PITR target 3 s after it. */
export async function backupUnderLoad(setup: Setup, user: RunAs, into: Seen, wall: (at: number) => number) {
  const started = performance.now();
  const leader = (await leaderOf(setup.nodes))!;
  await pgbackrest(user, setup.backupHost, ['--type=incr', 'backup']);
  const took = performance.now() - started;
  await sleep(3000);
  into.target = now();
  return `pgBackRest incremental backup of ${leader.name} on the backup host under load in ${seconds(took)}; PITR target ${targetTime(wall(into.target))} 3 s after it`;
}

export async function killLeader(setup: Setup, into: Seen): Promise<string> {
  const oldLeader = await leaderOf(setup.nodes);
  if (!oldLeader) throw new Error('no leader before the kill');
  into.oldLeader = oldLeader;
  const killed = now();
  const pids = await oldLeader.killMachine();
  const survivors = setup.nodes.filter((node) => node !== oldLeader);
  const leader = await waitUntil('a new leader (/primary 200)', () => leaderOf(survivors), 90_000, 100);
  into.newLeader = leader;
  const promoted = now();
  await setup.pgProxy.waitForOnly(leader.name, 30_000);
  return `${oldLeader.name} killed (${pids.length} processes); ${leader.name} leader +${seconds(promoted - killed)}, HAProxy sends to it +${seconds(now() - killed)}`;
}

export async function revokeKey(setup: Setup, into: Seen): Promise<string> {
  const { revocable, instances } = setup;
  const urls = instances.map((instance) => `http://127.0.0.1:${instance.port}`);
  // Every instance has the key in its cache first (accepted), so only the notification can make
  // it refuse the key within the bound.
  for (const url of urls)
    await waitUntil(
      `key accepted by ${url}`,
      async () => (await status(url, revocable.key)) === 200,
      30_000,
      200,
    );
  await invoicing(setup.cliEnv, ['keys', 'revoke', String(revocable.id)]);
  const revoked = now();
  // Each instance is asked again and again; what counts is when the first request it refused was
  // sent: from then on it refuses the key (on a busy machine a request's own answer may take
  // longer than the bound, which says nothing of when the instance learnt of the change).
  const refusedAt = await Promise.all(
    urls.map((url) =>
      waitUntil(
        `${url} refuses the revoked key`,
        async () => {
          const sent = now();
          return (await status(url, revocable.key)) === 401 ? sent : false;
        },
        10_000,
        25,
      ).catch(() => Number.NaN),
    ),
  );
  into.refusedIn = Math.max(...refusedAt.map((at) => at - revoked));
  const last = Number.isNaN(into.refusedIn) ? 'never (10 s)' : `${Math.max(0, into.refusedIn).toFixed(0)} ms`;
  return `refused by ${refusedAt.filter((at) => !Number.isNaN(at)).length} of ${urls.length} instances: the last one refused a request sent ${last} after bin/invoicing keys revoke returned`;
}

export async function rejoinOldLeader(setup: Setup, into: Seen, logDir: string): Promise<string> {
  const node = into.oldLeader;
  if (!node) throw new Error('no old leader');
  const logFile = path.join(logDir, `${node.name}.log`);
  const logFrom = readFileSync(logFile).length;
  const started = now();
  await node.start();
  const cluster = await waitUntil('3 nodes running again', () => healthy(setup.nodes), REJOIN_BOUND_MS, 500);
  const me = cluster.find((m) => m.name === node.name);
  Object.assign(into.rejoin, {
    ms: now() - started,
    log: readFileSync(logFile).subarray(logFrom).toString('utf8'),
    role: me?.role ?? null,
    state: me?.state ?? null,
    timeline: me?.timeline,
    leaderTimeline: cluster.find((m) => m.role === 'leader')?.timeline,
  });
  return judgeRejoin(into.rejoin, REJOIN_BOUND_MS).detail;
}

export async function switchoverToSync(setup: Setup): Promise<string> {
  const cluster = await members(setup.nodes);
  const leaderName = cluster.find((m) => m.role === 'leader')?.name;
  const candidate = cluster.find((m) => m.role === 'sync_standby')?.name;
  const leader = setup.nodes.find((node) => node.name === leaderName);
  if (!leader || !candidate) throw new Error(`no leader or synchronous standby: ${JSON.stringify(cluster)}`);
  const started = now();
  await switchover(leader, candidate, setup.restapiPassword);
  const next = setup.nodes.find((node) => node.name === candidate)!;
  await waitUntil(`${candidate} leads`, () => next.isPrimary(), 60_000, 100);
  await setup.pgProxy.waitForOnly(candidate, 30_000);
  return `${leader.name} -> ${candidate} (the synchronous standby): HAProxy sends to it +${seconds(now() - started)}`;
}
