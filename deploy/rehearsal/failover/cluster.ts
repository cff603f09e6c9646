// The failover rehearsal's database tier, all on 127.0.0.1: one etcd member (client and peer TLS,
// client certificates required), three Patroni nodes running deploy/patroni/patroni.yml unchanged
// (each node's name, addresses, data directory, certificate files and passwords come from
// Patroni's environment variables), PostgreSQL 15 under them (TLS only), pgBackRest archiving from
// the leader into an encrypted repository on the backup host (backup-host.ts) with
// deploy/pgbackrest/pgbackrest.conf and its lines for a backup host, each node running its own
// `pgbackrest server` beside Patroni. PostgreSQL
// refuses to run as root: as root, Patroni and pgBackRest run as the `postgres` user (setpriv
// execs, so a child's pid is Patroni's own).
import type { ChildProcess } from 'node:child_process';
import { execFile } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from '../../../scripts/lib/repo.js';
import { type RunAs, runAs } from '../lib/postgres.js';
import { exitAsError, isRunning, signalAndWait, startLogged, waitUntil } from '../lib/processes.js';
import {
  nodeBackupEnv,
  REPOSITORY_HOST_CONFIG,
  startPgbackrestServer,
  withBackupHostLines,
} from './backup-host.js';
import { type Certificates, installNodeCertificate, tlsRequest } from './tls.js';

const run = promisify(execFile);

export const PATRONI_CONFIG = path.join(repoRoot, 'deploy/patroni/patroni.yml');
export const PGBACKREST_CONFIG = path.join(repoRoot, 'deploy/pgbackrest/pgbackrest.conf');
export const STANZA = 'invoicing';
export const PG_BIN = process.env.REHEARSAL_PG_BIN ?? '/usr/lib/postgresql/15/bin';

export { type RunAs, runAs };

/** The configuration files Patroni and pgBackRest read. */
export interface ConfigFiles {
  patroni: string;
  /** The nodes' file as shipped (a node's own is nodeConfig: it adds the backup host's lines). */
  pgbackrest: string;
  /** The backup host's. */
  repositoryHost: string;
}

/**
 * The shipped files themselves when the user PostgreSQL runs as can read them; otherwise (a
 * checkout in a directory only root may enter, such as /root) byte-for-byte copies in the run
 * directory, so that Patroni never stops on a file it cannot open.
 */
export async function configFiles(
  runDir: string,
  user: RunAs,
  originals: ConfigFiles = {
    patroni: PATRONI_CONFIG,
    pgbackrest: PGBACKREST_CONFIG,
    repositoryHost: REPOSITORY_HOST_CONFIG,
  },
): Promise<{ files: ConfigFiles; copied: boolean }> {
  if (user.uid === null) return { files: originals, copied: false };
  const [command, ...prefix] = user.prefix;
  const readable = await Promise.all(
    Object.values(originals).map((file) =>
      run(command!, [...prefix, 'test', '-r', file]).then(
        () => true,
        () => false,
      ),
    ),
  );
  if (readable.every(Boolean)) return { files: originals, copied: false };
  const dir = path.join(runDir, 'config');
  mkdirSync(dir, { recursive: true, mode: 0o755 });
  const copy = (file: string) => {
    const target = path.join(dir, path.basename(file));
    copyFileSync(file, target);
    chmodSync(target, 0o644);
    return target;
  };
  return {
    files: {
      patroni: copy(originals.patroni),
      pgbackrest: copy(originals.pgbackrest),
      repositoryHost: copy(originals.repositoryHost),
    },
    copied: true,
  };
}

/**
 * A node's /etc/pgbackrest.conf with a backup host, as the runbook has the operator make it: the
 * shipped file with its commented lines for a backup host added (config/node-pgbackrest.conf).
 */
export function nodeConfig(runDir: string, shipped: string): string {
  const dir = path.join(runDir, 'config');
  mkdirSync(dir, { recursive: true, mode: 0o755 });
  const target = path.join(dir, 'node-pgbackrest.conf');
  writeFileSync(target, withBackupHostLines(readFileSync(shipped, 'utf8')));
  chmodSync(target, 0o644);
  return target;
}

/** A directory PostgreSQL's user owns (mode 0700 for data directories). */
export function ownedDir(dir: string, user: RunAs, mode = 0o700): string {
  mkdirSync(dir, { recursive: true, mode });
  if (user.uid !== null && user.gid !== null) chownSync(dir, user.uid, user.gid);
  return dir;
}

export interface Passwords {
  superuser: string;
  replication: string;
  rewind: string;
  /** Patroni's REST API (restapi.authentication: user `patroni`). */
  restapi: string;
  /** pgBackRest's repository (PGBACKREST_REPO1_CIPHER_PASS). */
  repoCipher: string;
}

export interface Etcd {
  /** host:port, for Patroni's etcd3.hosts. */
  url: string;
  /** https://host:port, for etcdctl. */
  endpoint: string;
  stop(): Promise<void>;
}

export async function startEtcd(
  runDir: string,
  clientPort: number,
  peerPort: number,
  logFile: string,
  certificates: Certificates,
): Promise<Etcd> {
  const client = `https://127.0.0.1:${clientPort}`;
  const peer = `https://127.0.0.1:${peerPort}`;
  const own = certificates.cert('etcd1');
  // The single-member form of deploy/patroni/etcd.env: TLS for clients and peers, and a
  // certificate of the cluster's CA required from both.
  const child = startLogged(
    'etcd',
    [
      '--name',
      'etcd1',
      '--data-dir',
      path.join(runDir, 'etcd'),
      '--listen-client-urls',
      client,
      '--advertise-client-urls',
      client,
      '--listen-peer-urls',
      peer,
      '--initial-advertise-peer-urls',
      peer,
      '--initial-cluster',
      `etcd1=${peer}`,
      '--initial-cluster-state',
      'new',
      ...['--cert-file', own.cert, '--key-file', own.key, '--trusted-ca-file', certificates.ca],
      '--client-cert-auth',
      ...['--peer-cert-file', own.cert, '--peer-key-file', own.key],
      ...['--peer-trusted-ca-file', certificates.ca, '--peer-client-cert-auth'],
    ],
    logFile,
  );
  await Promise.race([
    waitUntil(
      'etcd healthy',
      async () =>
        (await tlsRequest(`${client}/health`, { ca: certificates.ca, client: own })).text.includes('true'),
      30_000,
      200,
    ),
    exitAsError(child, 'etcd', logFile),
  ]);
  return {
    url: `127.0.0.1:${clientPort}`,
    endpoint: client,
    async stop() {
      await signalAndWait(child, 'SIGTERM', 10_000);
    },
  };
}

/** What a node's REST API says of the cluster (GET /cluster). */
export interface Member {
  name: string;
  role: string;
  state: string;
  lag?: number | string;
  timeline?: number;
}

export interface PatroniNode {
  name: string;
  pgPort: number;
  restPort: number;
  dataDir: string;
  /** https://127.0.0.1:port */
  restUrl: string;
  /** This node's certificate, key and the CA (tls/ next to its data directory). */
  tls: { cert: string; key: string; ca: string };
  start(): Promise<void>;
  running(): boolean;
  /** The machine is gone: SIGKILL to Patroni, the postmaster and every backend at once. */
  killMachine(): Promise<number[]>;
  stop(): Promise<void>;
  /** Rejects when Patroni exits (raced against a wait after start). */
  exited(): Promise<never>;
  /** GET /primary answers 200. */
  isPrimary(): Promise<boolean>;
  /** PGBACKREST_* for a pgBackRest command on this node. */
  pgbackrestEnv(): NodeJS.ProcessEnv;
}

/** Where the backup host listens and keeps the repository; each node's own server's port. */
export interface BackupHostPlace {
  port: number;
  repoPath: string;
  nodeServerPort(name: string): number;
}

export interface ClusterSettings {
  runDir: string;
  etcd: Etcd;
  user: RunAs;
  passwords: Passwords;
  logDir: string;
  certificates: Certificates;
  configs: ConfigFiles;
  /** The node's pgbackrest.conf with the backup host's lines (nodeConfig). */
  nodePgbackrestConfig: string;
  backupHost: BackupHostPlace;
}

function pgbackrestEnv(
  settings: ClusterSettings,
  node: { name: string; dataDir: string; pgPort: number; tls: { cert: string; key: string; ca: string } },
): NodeJS.ProcessEnv {
  const { runDir, backupHost } = settings;
  const { dataDir, pgPort } = node;
  return {
    PGBACKREST_CONFIG: settings.nodePgbackrestConfig,
    // The path the node names to the backup host: its repository.
    PGBACKREST_REPO1_PATH: backupHost.repoPath,
    ...nodeBackupEnv({
      tls: node.tls,
      serverPort: backupHost.nodeServerPort(node.name),
      backupPort: backupHost.port,
    }),
    PGBACKREST_LOG_PATH: path.join(runDir, 'pgbackrest', 'log'),
    PGBACKREST_LOCK_PATH: path.join(runDir, 'pgbackrest', 'lock'),
    PGBACKREST_PG1_PATH: dataDir,
    PGBACKREST_PG1_PORT: String(pgPort),
    PGBACKREST_REPO1_CIPHER_PASS: settings.passwords.repoCipher,
  };
}

export function preparePgbackrest(settings: ClusterSettings): void {
  ownedDir(path.join(settings.runDir, 'pgbackrest'), settings.user, 0o750);
  for (const dir of ['log', 'lock'])
    ownedDir(path.join(settings.runDir, 'pgbackrest', dir), settings.user, 0o750);
}

export function createNode(
  settings: ClusterSettings,
  name: string,
  pgPort: number,
  restPort: number,
): PatroniNode {
  const { runDir, user, passwords } = settings;
  // The node's directory holds data/ (empty, owned by postgres, mode 0700: Patroni runs initdb or
  // pg_basebackup into it) and tls/ next to it, as /var/lib/postgresql/15/ does in production.
  const nodeDir = ownedDir(path.join(runDir, name), user);
  const dataDir = ownedDir(path.join(nodeDir, 'data'), user);
  const tls = installNodeCertificate(
    settings.certificates,
    name,
    ownedDir(path.join(nodeDir, 'tls'), user),
    user,
  );
  const stateDir = ownedDir(path.join(runDir, `${name}-state`), user);
  const logFile = path.join(settings.logDir, `${name}.log`);
  const restUrl = `https://127.0.0.1:${restPort}`;
  const backupEnv = pgbackrestEnv(settings, { name, dataDir, pgPort, tls });
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...backupEnv,
    // The postgres user's own home, as in production: libpq (Patroni's connections, pg_rewind,
    // pg_basebackup) looks for a client certificate in ~/.postgresql/, and root's is unreadable.
    HOME: stateDir,
    PATRONI_NAME: name,
    PATRONI_RESTAPI_LISTEN: `127.0.0.1:${restPort}`,
    PATRONI_RESTAPI_CONNECT_ADDRESS: `127.0.0.1:${restPort}`,
    PATRONI_RESTAPI_CERTFILE: tls.cert,
    PATRONI_RESTAPI_KEYFILE: tls.key,
    PATRONI_RESTAPI_CAFILE: tls.ca,
    PATRONI_RESTAPI_ALLOWLIST: '127.0.0.1',
    PATRONI_ETCD3_HOSTS: settings.etcd.url,
    PATRONI_ETCD3_CACERT: tls.ca,
    PATRONI_ETCD3_CERT: tls.cert,
    PATRONI_ETCD3_KEY: tls.key,
    PATRONI_REPLICATION_SSLROOTCERT: tls.ca,
    PATRONI_REWIND_SSLROOTCERT: tls.ca,
    PATRONI_POSTGRESQL_LISTEN: `127.0.0.1:${pgPort}`,
    PATRONI_POSTGRESQL_CONNECT_ADDRESS: `127.0.0.1:${pgPort}`,
    PATRONI_POSTGRESQL_DATA_DIR: dataDir,
    PATRONI_POSTGRESQL_BIN_DIR: PG_BIN,
    PATRONI_POSTGRESQL_PGPASS: path.join(stateDir, 'pgpass'),
    PATRONI_SUPERUSER_PASSWORD: passwords.superuser,
    PATRONI_REPLICATION_PASSWORD: passwords.replication,
    PATRONI_REWIND_PASSWORD: passwords.rewind,
    PATRONI_RESTAPI_PASSWORD: passwords.restapi,
  };
  let child: ChildProcess | null = null;
  let server: Awaited<ReturnType<typeof startPgbackrestServer>> | null = null;

  function postmasterPid(): number | null {
    const file = path.join(dataDir, 'postmaster.pid');
    if (!existsSync(file)) return null;
    const pid = Number(readFileSync(file, 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  }

  return {
    name,
    pgPort,
    restPort,
    dataDir,
    restUrl,
    tls,
    async start() {
      // The node's own `pgbackrest server` (the backup host reads the leader through it).
      // With the passphrase, as the runbook's drop-in gives pgbackrest.service: the node's file
      // names repo1-cipher-type, and its server refuses the backup host's commands without one.
      server ??= await startPgbackrestServer({
        name,
        prefix: user.prefix,
        env: { ...backupEnv, HOME: stateDir },
        port: settings.backupHost.nodeServerPort(name),
        cwd: stateDir,
        logFile: path.join(settings.logDir, `${name}-pgbackrest-server.log`),
      });
      const [command, ...args] = [...user.prefix, 'patroni', settings.configs.patroni];
      child = startLogged(command!, args, logFile, { env, cwd: stateDir });
      await Promise.race([
        waitUntil(
          `${name}'s REST API`,
          async () => (await tlsRequest(`${restUrl}/health`, { ca: tls.ca })).status > 0,
          120_000,
          250,
        ),
        exitAsError(child, `Patroni ${name}`, logFile),
      ]);
    },
    running: () => child !== null && isRunning(child),
    async killMachine() {
      const pids: number[] = [];
      if (child?.pid) pids.push(child.pid);
      if (server?.pid) pids.push(server.pid);
      await server?.kill();
      server = null;
      const postmaster = postmasterPid();
      if (postmaster) {
        pids.push(postmaster);
        const children = await run('pgrep', ['-P', String(postmaster)]).catch(() => ({ stdout: '' }));
        pids.push(...children.stdout.split('\n').filter(Boolean).map(Number));
      }
      for (const pid of pids) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      if (child) await signalAndWait(child, 'SIGKILL', 10_000);
      if (postmaster) await waitUntil(`${name}'s postmaster gone`, () => !alive(postmaster), 10_000, 50);
      return pids;
    },
    async stop() {
      // Patroni stops PostgreSQL (fast shutdown) before it exits.
      if (child) await signalAndWait(child, 'SIGTERM', 60_000);
      const postmaster = postmasterPid();
      if (postmaster && alive(postmaster)) {
        process.kill(postmaster, 'SIGQUIT');
        await waitUntil(`${name}'s postmaster gone`, () => !alive(postmaster), 10_000, 100).catch(() => {});
      }
      await server?.stop();
      server = null;
    },
    async exited() {
      if (!child) throw new Error(`Patroni ${name} was never started`);
      return exitAsError(child, `Patroni ${name}`, logFile);
    },
    async isPrimary() {
      try {
        return (await tlsRequest(`${restUrl}/primary`, { ca: tls.ca, timeoutMs: 1000 })).status === 200;
      } catch {
        return false;
      }
    },
    pgbackrestEnv: () => backupEnv,
  };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The cluster as any node still answering sees it. */
export async function members(nodes: PatroniNode[]): Promise<Member[]> {
  for (const node of nodes) {
    try {
      const { status, text } = await tlsRequest(`${node.restUrl}/cluster`, {
        ca: node.tls.ca,
        timeoutMs: 1500,
      });
      if (status === 200) return (JSON.parse(text) as { members: Member[] }).members;
    } catch {
      // this node is gone: ask the next
    }
  }
  throw new Error('no Patroni node answers GET /cluster');
}

export async function leaderOf(nodes: PatroniNode[]): Promise<PatroniNode | null> {
  for (const node of nodes) if (await node.isPrimary()) return node;
  return null;
}

/** Every node running, one leader, one synchronous standby, the others streaming. */
export async function healthy(nodes: PatroniNode[], expected = nodes.length): Promise<Member[] | false> {
  const seen = await members(nodes);
  const running = seen.filter((m) => m.state === 'running' || m.state === 'streaming');
  const leaders = seen.filter((m) => m.role === 'leader');
  const sync = seen.filter((m) => m.role === 'sync_standby');
  return running.length === expected && leaders.length === 1 && sync.length === 1 ? seen : false;
}

/** A pgBackRest command on `node` (or with a backup host's `env`), as the postgres user; its stdout. */
export async function pgbackrest(
  user: RunAs,
  node: PatroniNode | { pgbackrestEnv(): NodeJS.ProcessEnv },
  args: readonly string[],
): Promise<string> {
  const [command, ...rest] = [...user.prefix, 'pgbackrest', `--stanza=${STANZA}`, ...args];
  try {
    const { stdout } = await run(command!, rest, {
      env: { ...process.env, ...node.pgbackrestEnv() },
      timeout: 300_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    return stdout;
  } catch (error) {
    const failure = error as { stderr?: string; stdout?: string; message: string };
    throw new Error(
      `pgbackrest ${args.join(' ')}: ${failure.stderr?.trim() || failure.stdout?.trim() || failure.message}`,
    );
  }
}

/**
 * A planned switchover by Patroni's REST API (what `patronictl switchover` asks for): from an
 * allowed address, with a client certificate of the CA (the leader's own, as patronictl on a node
 * uses) and the REST API's credentials.
 */
export async function switchover(leader: PatroniNode, candidate: string, password: string): Promise<string> {
  const { status, text } = await tlsRequest(`${leader.restUrl}/switchover`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Basic ${Buffer.from(`patroni:${password}`).toString('base64')}`,
    },
    body: JSON.stringify({ leader: leader.name, candidate }),
    ca: leader.tls.ca,
    client: leader.tls,
    timeoutMs: 60_000,
  });
  if (status !== 200) throw new Error(`switchover refused: ${status} ${text}`);
  return text.trim();
}
