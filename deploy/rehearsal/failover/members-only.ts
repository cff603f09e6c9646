// Issue 38's attack, tried on the rehearsal's cluster: what someone who reaches the ports (but holds
// no key of the cluster's CA) can do. With the shipped files before TLS, an unauthenticated
// `etcdctl put` to Patroni's keys changed archive_command and the leader ran it as postgres; a
// plain-text PostgreSQL connection was accepted. Each outsider's attempt is paired with a member's
// (with the node's certificate, or TLS), so that a refusal cannot be something merely down.
// judge.ts's judgeMembersOnly decides.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import pg from 'pg';
import type { Etcd, PatroniNode } from './cluster.js';
import type { Attempt } from './judge.js';
import { tlsRequest } from './tls.js';

const run = promisify(execFile);

/** A harmless key under Patroni's prefix: writing it proves the right to write the others. */
const PROBE_KEY = '/service/invoicing/members-only-probe';

async function etcdctl(args: string[]): Promise<{ ok: boolean; output: string }> {
  try {
    const { stdout, stderr } = await run('etcdctl', ['--dial-timeout=3s', '--command-timeout=5s', ...args], {
      env: { ...process.env, ETCDCTL_API: '3' },
      timeout: 20_000,
    });
    return { ok: true, output: `${stdout}${stderr}`.trim() };
  } catch (error) {
    const failure = error as { stderr?: string; message: string };
    return { ok: false, output: (failure.stderr || failure.message).trim().split('\n').slice(-1)[0] ?? '' };
  }
}

function short(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 120 ? `${line.slice(0, 117)}...` : line;
}

/** `etcdctl put` without a client certificate, over TLS (trusting the CA) and in plain text. */
export async function etcdOutsiders(etcd: Etcd, ca: string): Promise<Attempt[]> {
  const attempts: Attempt[] = [];
  for (const [what, endpoint, extra] of [
    ['etcdctl put, TLS, no client certificate', etcd.endpoint, [`--cacert=${ca}`]],
    ['etcdctl put, plain text', etcd.endpoint.replace(/^https:/, 'http:'), []],
  ] as const) {
    const result = await etcdctl([`--endpoints=${endpoint}`, ...extra, 'put', PROBE_KEY, 'outsider']);
    attempts.push({ what, refused: !result.ok, detail: short(result.output) });
  }
  return attempts;
}

/** The same etcd read by a member (a node's certificate). */
export async function etcdMember(etcd: Etcd, node: PatroniNode): Promise<Attempt> {
  const result = await etcdctl([
    `--endpoints=${etcd.endpoint}`,
    `--cacert=${node.tls.ca}`,
    `--cert=${node.tls.cert}`,
    `--key=${node.tls.key}`,
    'get',
    '--prefix',
    '--keys-only',
    '/service/invoicing/',
  ]);
  return {
    what: `etcdctl get with ${node.name}'s certificate`,
    refused: !result.ok,
    detail: short(result.output),
  };
}

async function connects(config: pg.ClientConfig): Promise<{ ok: boolean; detail: string }> {
  const client = new pg.Client({ ...config, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
    const result = await client.query<{ ssl: boolean }>(
      'select coalesce((select ssl from pg_stat_ssl where pid = pg_backend_pid()), false) as ssl',
    );
    return { ok: true, detail: result.rows[0]?.ssl ? 'TLS' : 'plain text' };
  } catch (error) {
    return { ok: false, detail: short((error as Error).message) };
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * The superuser with the right password, in plain text (sslmode=disable), through HAProxy and
 * straight to the leader's port; and the same through HAProxy over TLS (verify-full) as a member.
 */
export async function postgresAttempts(options: {
  password: string;
  proxyPort: number;
  leader: PatroniNode;
  ca: string;
}): Promise<{ outsiders: Attempt[]; members: Attempt[] }> {
  const base = { host: '127.0.0.1', user: 'postgres', password: options.password, database: 'postgres' };
  const outsiders: Attempt[] = [];
  for (const [what, port] of [
    ['PostgreSQL in plain text through HAProxy', options.proxyPort],
    [`PostgreSQL in plain text to ${options.leader.name}`, options.leader.pgPort],
  ] as const) {
    const result = await connects({ ...base, port, ssl: false });
    outsiders.push({ what, refused: !result.ok, detail: result.detail });
  }
  const member = await connects({
    connectionString: `postgres://postgres:${encodeURIComponent(options.password)}@127.0.0.1:${
      options.proxyPort
    }/postgres?sslmode=verify-full&sslrootcert=${encodeURIComponent(options.ca)}`,
  });
  return {
    outsiders,
    members: [
      {
        what: 'PostgreSQL over TLS (verify-full) through HAProxy',
        refused: !member.ok || member.detail !== 'TLS',
        detail: member.detail,
      },
    ],
  };
}

/**
 * A change on Patroni's REST API (POST /reload: harmless if it were let through) with the right
 * password but no client certificate, over TLS and in plain text.
 */
export async function patroniOutsiders(node: PatroniNode, password: string): Promise<Attempt[]> {
  const authorization = `Basic ${Buffer.from(`patroni:${password}`).toString('base64')}`;
  const attempts: Attempt[] = [];
  try {
    const { status, text } = await tlsRequest(`${node.restUrl}/reload`, {
      method: 'POST',
      headers: { authorization },
      ca: node.tls.ca,
      timeoutMs: 5000,
    });
    attempts.push({
      what: 'Patroni POST /reload, no client certificate',
      refused: status === 401 || status === 403,
      detail: `${status} ${short(text)}`,
    });
  } catch (error) {
    attempts.push({
      what: 'Patroni POST /reload, no client certificate',
      refused: true,
      detail: short((error as Error).message),
    });
  }
  try {
    const response = await fetch(`${node.restUrl.replace(/^https:/, 'http:')}/reload`, {
      method: 'POST',
      headers: { authorization },
      signal: AbortSignal.timeout(5000),
    });
    const text = await response.text();
    attempts.push({
      what: 'Patroni POST /reload, plain text',
      refused: response.status === 401 || response.status === 403,
      detail: `${response.status} ${short(text)}`,
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    attempts.push({
      what: 'Patroni POST /reload, plain text',
      refused: true,
      detail: short(cause?.code ?? cause?.message ?? (error as Error).message),
    });
  }
  return attempts;
}
