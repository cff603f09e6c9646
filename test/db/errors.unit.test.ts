// One classifier of database errors (src/db/errors.ts): every code the four old tables named, as
// the driver, drizzle and node's sockets deliver them, and the same verdict through each caller:
// the API's answer, /readyz's reason and the command line's message.
import { DrizzleQueryError } from 'drizzle-orm/errors';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { describeCliFailure } from '../../src/cli/main.js';
import type { DatabaseHandle } from '../../src/db/client.js';
import { type DatabaseErrorKind, describeDatabaseError } from '../../src/db/errors.js';
import { registerErrorHandler } from '../../src/http/error-handler.js';
import { translator } from '../../src/i18n/catalog.js';
import { checkDatabase } from '../../src/monitoring/readiness.js';

/** An error as node-postgres reports a server's answer (a SQLSTATE) or node a socket's (errno). */
function coded(code: string, message = `failure ${code}`): Error {
  return Object.assign(new Error(message), { code });
}

/** As drizzle throws it: the driver's error is the cause. */
function viaDrizzle(cause: Error): Error {
  return new DrizzleQueryError('insert into customers (name) values ($1)', ['Segredo Lda'], cause);
}

type Case = [name: string, error: () => unknown, kind: DatabaseErrorKind, label: string, drop: boolean];

const CASES: Case[] = [
  ['57P01 admin shutdown', () => coded('57P01'), 'unavailable', 'admin_shutdown', true],
  ['57P02 crash shutdown', () => coded('57P02'), 'unavailable', 'crash_shutdown', true],
  ['57P03 cannot connect now', () => coded('57P03'), 'unavailable', 'cannot_connect_now', true],
  ['53300 too many connections', () => coded('53300'), 'unavailable', 'too_many_connections', true],
  ['25006 read-only transaction (a replica now)', () => coded('25006'), 'unavailable', 'read_only', true],
  ['08000 connection exception', () => coded('08000'), 'unavailable', 'connection_exception', true],
  ['08001 unable to connect', () => coded('08001'), 'unavailable', 'connection_not_established', true],
  ['08003 connection does not exist', () => coded('08003'), 'unavailable', 'connection_does_not_exist', true],
  ['08004 connection rejected', () => coded('08004'), 'unavailable', 'connection_rejected', true],
  ['08006 connection failure', () => coded('08006'), 'unavailable', 'connection_failure', true],
  ['ECONNREFUSED', () => coded('ECONNREFUSED'), 'unavailable', 'connection_refused', true],
  ['ECONNRESET', () => coded('ECONNRESET'), 'unavailable', 'connection_reset', true],
  ['ETIMEDOUT', () => coded('ETIMEDOUT'), 'unavailable', 'connection_timed_out', true],
  ['EPIPE', () => coded('EPIPE'), 'unavailable', 'connection_broken', true],
  ['EHOSTUNREACH', () => coded('EHOSTUNREACH'), 'unavailable', 'host_unreachable', true],
  ['ENOTFOUND', () => coded('ENOTFOUND'), 'unavailable', 'host_not_found', true],
  ['EAI_AGAIN', () => coded('EAI_AGAIN'), 'unavailable', 'host_lookup_failed', true],
  [
    'AggregateError of ECONNREFUSED (every address of a host refused)',
    () => new AggregateError([coded('ECONNREFUSED'), coded('ECONNREFUSED')], ''),
    'unavailable',
    'connection_refused',
    true,
  ],
  [
    'AggregateError wrapped by drizzle',
    () => viaDrizzle(new AggregateError([new Error('other'), coded('ECONNRESET')], '') as unknown as Error),
    'unavailable',
    'connection_reset',
    true,
  ],
  [
    "pg's Connection terminated unexpectedly",
    () => viaDrizzle(new Error('Connection terminated unexpectedly')),
    'unavailable',
    'connection_closed',
    true,
  ],
  [
    'pg: Connection terminated',
    () => new Error('Connection terminated'),
    'unavailable',
    'connection_closed',
    true,
  ],
  [
    'pg: connection timeout',
    () => new Error('Connection terminated due to connection timeout'),
    'unavailable',
    'connection_timed_out',
    true,
  ],
  [
    'pg: a client that lost its connection',
    () => new Error('Client has encountered a connection error and is not queryable'),
    'unavailable',
    'connection_closed',
    true,
  ],
  [
    'pg: a closed client',
    () => new Error('Client was closed and is not queryable'),
    'unavailable',
    'connection_closed',
    true,
  ],
  [
    'pool timeout (no free connection)',
    () => new Error('timeout exceeded when trying to connect'),
    'retryable',
    'pool_timeout',
    false,
  ],
  ['55P03 lock timeout', () => viaDrizzle(coded('55P03')), 'retryable', 'lock_timeout', false],
  ['57014 statement timeout', () => viaDrizzle(coded('57014')), 'retryable', 'statement_timeout', false],
  ['25P03 idle in transaction timeout', () => coded('25P03'), 'retryable', 'transaction_ended', true],
  [
    '40001 serialization failure',
    () => viaDrizzle(coded('40001')),
    'retryable',
    'serialization_failure',
    false,
  ],
  ['40P01 deadlock', () => viaDrizzle(coded('40P01')), 'retryable', 'deadlock', false],
  ['3D000 no such database', () => coded('3D000'), 'setup', 'no_database', false],
  ['28P01 wrong password', () => coded('28P01'), 'setup', 'authentication_failed', false],
  ['28000 not authorized', () => coded('28000'), 'setup', 'authentication_failed', false],
  ['42P01 no tables', () => viaDrizzle(coded('42P01')), 'setup', 'not_migrated', false],
  ['3F000 no schema', () => coded('3F000'), 'setup', 'not_migrated', false],
  ['23505 unique violation', () => viaDrizzle(coded('23505')), 'input', 'invalid_data', false],
  ['22P02 invalid text', () => viaDrizzle(coded('22P02')), 'input', 'invalid_data', false],
  ['42601 syntax error', () => viaDrizzle(coded('42601')), 'bug', 'unexpected', false],
  ['a plain Error', () => new Error('something else'), 'bug', 'unexpected', false],
  ['not an Error', () => 'a string', 'bug', 'unexpected', false],
];

describe('describeDatabaseError', () => {
  it.each(CASES)('%s', (_name, error, kind, label, drop) => {
    const verdict = describeDatabaseError(error());
    expect(verdict).toMatchObject({ kind, label, dropConnection: drop });
    expect(verdict.retryable).toBe(kind === 'retryable' || kind === 'unavailable');
    expect(verdict.reason).not.toMatch(/insert|Segredo|failure \w{5}/);
  });

  it('walks a cycle of causes without looping', () => {
    const error = new Error('loop') as Error & { cause?: unknown };
    error.cause = error;
    expect(describeDatabaseError(error).kind).toBe('bug');
  });
});

/** What the API answers when a route meets `error`: the real error handler, through HTTP injection. */
async function httpAnswer(error: unknown): Promise<{ status: number; retryAfter: string | undefined }> {
  const app = Fastify({ logger: false });
  registerErrorHandler(app);
  app.get('/', async () => {
    throw error;
  });
  const response = await app.inject({ method: 'GET', url: '/' });
  await app.close();
  return { status: response.statusCode, retryAfter: response.headers['retry-after'] as string | undefined };
}

/** /readyz's database check when the database's answer is `error`. */
async function readinessAnswer(error: unknown): Promise<{ ok: boolean; reason?: string }> {
  const failing = {
    execute: async () => {
      throw error;
    },
  };
  return checkDatabase({ db: failing } as unknown as DatabaseHandle, 1000);
}

describe('the API, readiness and the command line ask the one classifier', () => {
  it.each(CASES)('%s', async (_name, error, kind) => {
    const verdict = describeDatabaseError(error());
    const http = await httpAnswer(error());
    const ready = await readinessAnswer(error());
    // (English asked for: the messages below are asserted in English)
    const cli = describeCliFailure(error(), false, translator('en'));

    // The API: the retryable 503 with Retry-After exactly when the verdict says a retry may succeed.
    expect(http.status).toBe(verdict.retryable ? 503 : 500);
    expect(http.retryAfter).toBe(verdict.retryable ? '2' : undefined);
    // Readiness: never ready; the verdict's reason whenever it knows one.
    expect(ready.ok).toBe(false);
    if (kind === 'input' || kind === 'bug') expect(ready.reason).toBe('database unreachable');
    else expect(ready.reason).toContain(verdict.reason);
    // The command line: the verdict's reason as an environment failure, or the generic message.
    if (kind === 'input' || kind === 'bug') {
      expect(cli).toMatchObject({ kind: 'unexpected', message: 'unexpected failure' });
    } else {
      expect(cli.kind).toBe('environment');
      if (verdict.label === 'not_migrated') expect(cli.message).toMatch(/run bin\/invoicing migrate/);
      else expect(cli.message).toContain(verdict.reason);
    }
    if (kind === 'unavailable') expect(cli.message).toMatch(/^cannot reach the database: /);
  });
});
