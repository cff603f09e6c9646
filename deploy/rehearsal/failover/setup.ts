// The failover rehearsal's deployment (deploy/rehearsal/failover/run.ts): the fixed ports of the
// run, the certificates (deploy/tls/make-certs.sh), etcd, the pgBackRest backup host and the
// Patroni cluster, the PostgreSQL HAProxy, the runbook's step 4 on the backup host (stanza, check,
// full backup; the repository encrypted),
// the service's database and role, companies, keys and webhook endpoints made with bin/invoicing,
// three instances behind the API's HAProxy; and the small probes the phases share.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { positiveInteger } from '../../../scripts/lib/args.js';
import { repoRoot } from '../../../scripts/lib/repo.js';
import { invoicing } from '../lib/checks.js';
import { type Instance, instanceEnv } from '../lib/instances.js';
import type { KeyOfCompany } from '../lib/load.js';
import { withClient } from '../lib/postgres.js';
import { waitUntil } from '../lib/processes.js';
import { say } from '../lib/progress.js';
import type { Receivers } from '../lib/receivers.js';
import type { RunContext } from '../lib/scenario.js';
import { seedService, startInstances } from '../lib/service.js';
import { backupHostEnv, RUNBOOK_STEP_4, startPgbackrestServer } from './backup-host.js';
import {
  type ClusterSettings,
  configFiles,
  createNode,
  type Etcd,
  healthy,
  nodeConfig,
  ownedDir,
  type PatroniNode,
  pgbackrest,
  preparePgbackrest,
  type RunAs,
  runAs,
  startEtcd,
} from './cluster.js';
import { type PgHaproxy, startPgHaproxy } from './pg-haproxy.js';
import { type Certificates, installNodeCertificate, makeCertificates, SERVICE_NAME } from './tls.js';

const run = promisify(execFile);
/** The runbook's step that creates the service's role and database. */
export const CREATE_DATABASE = path.join(repoRoot, 'deploy/runbook/create-database.sh');

export const BASE = positiveInteger(process.env.FAILOVER_PORT_BASE, 'FAILOVER_PORT_BASE', 27100);
export const PORTS = {
  etcdClient: BASE + 1,
  etcdPeer: BASE + 2,
  node: (index: number) => ({ pg: BASE + 11 + index * 10, rest: BASE + 12 + index * 10 }),
  pgProxy: BASE + 41,
  apiProxy: BASE + 51,
  api: (index: number) => ({ port: BASE + 61 + index * 2, ops: BASE + 62 + index * 2 }),
  restoredPg: BASE + 81,
  restoredApi: { port: BASE + 82, ops: BASE + 83 },
  /** The backup host's `pgbackrest server`, and each node's own. */
  backupHost: BASE + 91,
  nodeServer: (index: number) => BASE + 13 + index * 10,
};
export const NODES = 3;
export const INSTANCES = 3;
export const COMPANIES = 3;
export const KEYS_PER_COMPANY = 2;
export const WORKERS_PER_KEY = 2;
export const PAUSE_MS = 250;
export const DRAIN_MS = 5000;
export const WARMUP = 10_000;
export const SETTLE = 15_000;
/** What the clients' retries must outlast (issue 31: the official clients' budget, at least 45 s). */
export const RETRY_BUDGET_MS = 45_000;
/** A revoked key must be refused by every instance within this. */
export const REVOKE_BOUND_MS = 1000;
/**
 * The instances' key cache keeps a key this long (KEY_CACHE_TTL_MS, a testing knob; 1 s by
 * default): far above REVOKE_BOUND_MS, so only the change notification can meet that bound.
 */
export const KEY_CACHE_TTL_MS = 60_000;
/** The old leader must be back as a replica within this of its start (pg_rewind takes seconds). */
export const REJOIN_BOUND_MS = 60_000;
export const REDIS_URL = process.env.FAILOVER_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** The frame's context (run directory, logs, what to stop) and the run's id (its markers). */
export interface FailoverContext extends RunContext {
  runId: string;
}

export interface Setup {
  runDir: string;
  certificates: Certificates;
  etcd: Etcd;
  nodes: PatroniNode[];
  superuserUrl: (port: number, database?: string) => string;
  databaseUrl: string;
  cliEnv: NodeJS.ProcessEnv;
  keys: KeyOfCompany[];
  companyIds: number[];
  revocable: { id: number; key: string };
  instances: Instance[];
  restapiPassword: string;
  superuserPassword: string;
  apiUrl: string;
  pgProxy: PgHaproxy;
  receivers: Receivers;
  backupHost: BackupHost;
}

/** The backup host: a pgBackRest command there (with the passphrase, as its cron job has it). */
export interface BackupHost {
  pgbackrestEnv(): NodeJS.ProcessEnv;
}

/**
 * The runbook's step 4': the backup host's directory (repo, log, lock; tls/ with its certificate
 * as /etc/pgbackrest/tls/ holds it) and its `pgbackrest server` with repository-host.conf, the
 * passphrase in its environment (as the runbook's drop-in gives pgbackrest.service): the WAL a
 * node pushes is encrypted by the backup host's server, which refuses it without one.
 */
async function startBackupHost(
  settings: ClusterSettings,
  nodes: { dataDir: string; pgPort: number }[],
  user: RunAs,
  passphrase: string,
): Promise<{ host: BackupHost; stop(): Promise<void> }> {
  const dir = ownedDir(path.join(settings.runDir, 'backup'), user, 0o750);
  for (const sub of ['repo', 'log', 'lock']) ownedDir(path.join(dir, sub), user, 0o750);
  const tls = installNodeCertificate(
    settings.certificates,
    'backup',
    ownedDir(path.join(dir, 'tls'), user),
    user,
  );
  const env = backupHostEnv({
    config: settings.configs.repositoryHost,
    dir,
    tls,
    port: settings.backupHost.port,
    nodes: nodes.map((node, index) => ({ ...node, serverPort: PORTS.nodeServer(index) })),
  });
  const withPassphrase = { ...env, PGBACKREST_REPO1_CIPHER_PASS: passphrase };
  const server = await startPgbackrestServer({
    name: 'the backup host',
    prefix: user.prefix,
    env: withPassphrase,
    port: settings.backupHost.port,
    cwd: dir,
    logFile: path.join(settings.logDir, 'backup-pgbackrest-server.log'),
  });
  return {
    host: { pgbackrestEnv: () => withPassphrase },
    stop: () => server.stop(),
  };
}

export async function bringUp(context: FailoverContext): Promise<Setup> {
  const { runDir, runId, logDir, stops } = context;
  const user = await runAs();
  const passwords = {
    superuser: randomBytes(12).toString('hex'),
    replication: randomBytes(12).toString('hex'),
    rewind: randomBytes(12).toString('hex'),
    restapi: randomBytes(12).toString('hex'),
    repoCipher: randomBytes(24).toString('base64'),
  };
  const appPassword = randomBytes(12).toString('hex');
  const nodeNames = Array.from({ length: NODES }, (_, index) => `pg${index + 1}`);
  const certificates = await makeCertificates(
    path.join(runDir, 'ca'),
    ['etcd1', ...nodeNames, 'restored', 'backup'],
    ['backup'],
  );
  say(`certificates: a CA and ${nodeNames.length + 3} certificates (deploy/tls/make-certs.sh)`);
  const etcd = await startEtcd(
    runDir,
    PORTS.etcdClient,
    PORTS.etcdPeer,
    path.join(logDir, 'etcd.log'),
    certificates,
  );
  stops.push(() => etcd.stop());
  say(`etcd on port ${PORTS.etcdClient} (TLS, client certificates required)`);
  const configs = await configFiles(runDir, user);
  if (configs.copied)
    say(
      `the postgres user cannot read the checkout's configuration files: Patroni and pgBackRest read byte-for-byte copies in ${configs.files.patroni.replace(/\/[^/]+$/, '')}`,
    );
  const settings: ClusterSettings = {
    runDir,
    etcd,
    user,
    passwords,
    logDir,
    certificates,
    configs: configs.files,
    nodePgbackrestConfig: nodeConfig(runDir, configs.files.pgbackrest),
    backupHost: {
      port: PORTS.backupHost,
      repoPath: path.join(runDir, 'backup', 'repo'),
      nodeServerPort: (name) => PORTS.nodeServer(nodeNames.indexOf(name)),
    },
  };
  preparePgbackrest(settings);
  const nodes = nodeNames.map((name, index) =>
    createNode(settings, name, PORTS.node(index).pg, PORTS.node(index).rest),
  );
  const backup = await startBackupHost(settings, nodes, user, passwords.repoCipher);
  stops.push(() => backup.stop());
  say(
    `backup host: pgbackrest server on port ${PORTS.backupHost} (TLS; deploy/pgbackrest/repository-host.conf)`,
  );
  stops.push(async () => {
    await Promise.all(nodes.map((node) => node.stop().catch(() => {})));
  });
  await nodes[0]!.start();
  await Promise.race([
    waitUntil('pg1 bootstraps the cluster and leads', () => nodes[0]!.isPrimary(), 120_000, 250),
    nodes[0]!.exited(),
  ]);
  say('pg1 bootstrapped the cluster (initdb) and leads');
  for (const node of nodes.slice(1)) await node.start();
  const seen = await waitUntil(
    '3 nodes running, one synchronous standby',
    () => healthy(nodes),
    180_000,
    500,
  );
  say(`Patroni: ${seen.map((m) => `${m.name} ${m.role}`).join(', ')}`);
  // The runbook's step 4, on the backup host: stanza (the encryption fixed here), check, full backup.
  for (const args of RUNBOOK_STEP_4) await pgbackrest(user, backup.host, args);
  say(`pgBackRest on the backup host: ${RUNBOOK_STEP_4.map((args) => args.join(' ')).join(', ')}`);
  const pgProxy = await startPgHaproxy({
    port: PORTS.pgProxy,
    nodes,
    runDir,
    logFile: path.join(logDir, 'haproxy-postgres.log'),
    caFile: certificates.ca,
    serviceName: SERVICE_NAME,
  });
  stops.push(() => pgProxy.stop());
  await pgProxy.waitForOnly('pg1', 30_000);
  say(`HAProxy for PostgreSQL on port ${PORTS.pgProxy}: connections go to pg1`);
  // TLS only, the server's certificate checked against the CA and the address (verify-full), as
  // the service's DATABASE_URL does in deploy/invoicing.env.example.
  const tlsParameters = `sslmode=verify-full&sslrootcert=${encodeURIComponent(certificates.ca)}`;
  const superuserUrl = (port: number, database = 'postgres') =>
    `postgres://postgres:${passwords.superuser}@127.0.0.1:${port}/${database}?${tlsParameters}`;
  // The runbook's own step (deploy/README.md, "Building the cluster"): the same script.
  const created = await run('bash', [CREATE_DATABASE], {
    env: {
      ...process.env,
      PGHOST: '127.0.0.1',
      PGPORT: String(PORTS.pgProxy),
      PGSSLROOTCERT: certificates.ca,
      PGPASSWORD: passwords.superuser,
      INVOICING_DB_PASSWORD: appPassword,
    },
    timeout: 60_000,
  });
  say(created.stdout.trim());
  const databaseUrl = `postgres://invoicing:${appPassword}@127.0.0.1:${PORTS.pgProxy}/invoicing?${tlsParameters}`;

  // The instances' limits in the machine's Redis, under a prefix of this run only.
  process.env.REDIS_KEY_PREFIX = `${runId}:`;
  const instanceSettings = (index: number) => ({
    port: PORTS.api(index).port,
    opsPort: PORTS.api(index).ops,
    databaseUrl,
    redisUrl: REDIS_URL,
    drainMs: DRAIN_MS,
    extraEnv: { KEY_CACHE_TTL_MS: String(KEY_CACHE_TTL_MS) },
  });
  const cliEnv = instanceEnv(instanceSettings(0));
  const { companyIds, keys, receivers } = await seedService(cliEnv, {
    companies: COMPANIES,
    keysPerCompany: KEYS_PER_COMPANY,
    receiversPerCompany: 1,
  });
  stops.push(() => receivers.close());
  // A key the load never uses: revoked after the failover.
  const revocable = await invoicing<{ id: number; key: string }>(cliEnv, [
    ...['keys', 'create', '--company', String(companyIds[0]), '--mode', 'live', '--scopes', 'all'],
  ]);
  const { instances, haproxy: apiProxy } = await startInstances({
    count: INSTANCES,
    place: instanceSettings,
    proxyPort: PORTS.apiProxy,
    runDir,
    logDir,
  });
  stops.push(async () => {
    await Promise.all(instances.map((instance) => instance.stop().catch(() => {})));
  });
  stops.push(() => apiProxy.stop());
  return {
    runDir,
    certificates,
    etcd,
    nodes,
    superuserUrl,
    databaseUrl,
    cliEnv,
    keys,
    companyIds,
    revocable,
    instances,
    apiUrl: apiProxy.url,
    restapiPassword: passwords.restapi,
    superuserPassword: passwords.superuser,
    pgProxy,
    receivers,
    backupHost: backup.host,
  };
}

export async function status(url: string, key: string): Promise<number> {
  const response = await fetch(`${url}/api/v1/partner/ping`, {
    headers: { authorization: `Bearer ${key}` },
    signal: AbortSignal.timeout(2000),
  });
  await response.text();
  return response.status;
}

export async function markerCounts(url: string, runId: string): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  await withClient(url, async (client) => {
    for (const [table, column] of [
      ['customers', 'name'],
      ['products', 'name'],
      ['invoices', 'reference'],
    ] as const) {
      const result = await client.query<{ marker: string; count: string }>(
        `select ${column} as marker, count(*) as count from ${table} where ${column} like $1 group by ${column}`,
        [`${runId}-%`],
      );
      for (const row of result.rows) counts.set(row.marker, Number(row.count));
    }
  });
  return counts;
}
