// The highly available recipe's configuration (deploy/patroni, deploy/haproxy/postgres.cfg,
// deploy/pgbackrest) keeps the properties deploy/README.md, "High availability", promises: a
// failover bounded well inside the official clients' retry budget, no acknowledged write on one
// machine only, the old leader rewound, WAL archived into the stanza the backups use, and
// connections sent to the leader only. `npm run rehearsal:failover` runs these very files.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const read = (file: string) => readFileSync(fileURLToPath(new URL(`../../${file}`, import.meta.url)), 'utf8');
const patroni = read('deploy/patroni/patroni.yml');
const pgbackrest = read('deploy/pgbackrest/pgbackrest.conf');
const haproxy = read('deploy/haproxy/postgres.cfg');

/** The number after `name:` in patroni.yml (each setting appears once). */
function setting(name: string): number {
  const matches = [...patroni.matchAll(new RegExp(`^\\s*${name}:\\s*(\\d+)\\s*(?:#.*)?$`, 'gm'))];
  expect(matches, name).toHaveLength(1);
  return Number(matches[0]![1]);
}

/** What the clients' retries must outlast (issue 31: at least 45 s). */
const RETRY_BUDGET_S = 45;

describe('Patroni (deploy/patroni/patroni.yml)', () => {
  it("bounds a failover (ttl + loop_wait + a promotion) well inside the clients' retry budget, with Patroni's own rule loop_wait + 2 x retry_timeout <= ttl", () => {
    const ttl = setting('ttl');
    const loopWait = setting('loop_wait');
    const retryTimeout = setting('retry_timeout');
    expect(loopWait + 2 * retryTimeout).toBeLessThanOrEqual(ttl);
    expect(ttl + loopWait + 2).toBeLessThan(RETRY_BUDGET_S);
  });

  it('replicates synchronously, rewinds an old leader, and has what pg_rewind needs', () => {
    expect(patroni).toMatch(/^\s*synchronous_mode: true\s*$/m);
    expect(patroni).toMatch(/^\s*synchronous_mode_strict: (true|false)\s*$/m);
    expect(patroni).toMatch(/^\s*use_pg_rewind: true\s*$/m);
    expect(patroni).toMatch(/^\s*wal_log_hints: "on"\s*$/m);
    expect(patroni).toMatch(/^\s*- data-checksums\s*$/m);
  });

  it('archives WAL with pgBackRest into the stanza pgbackrest.conf defines', () => {
    const stanza = /archive_command: pgbackrest --stanza=(\w+) archive-push %p/.exec(patroni)?.[1];
    expect(stanza).toBeDefined();
    expect(pgbackrest).toContain(`\n[${stanza}]\n`);
    expect(patroni).toMatch(/^\s*archive_mode: "on"\s*$/m);
  });

  it('keeps secrets out of the file: no password is written in it', () => {
    expect(patroni).not.toMatch(/^\s*password:/m);
  });
});

describe('pgBackRest (deploy/pgbackrest/pgbackrest.conf)', () => {
  it('keeps full backups by count and has no comment after a value (pgBackRest would read it as part of the value)', () => {
    expect(pgbackrest).toMatch(/^repo1-retention-full=\d+$/m);
    for (const line of pgbackrest.split('\n').filter((l) => /^[a-z0-9-]+=/.test(l)))
      expect(line, line).not.toMatch(/\s#/);
  });
});

describe('HAProxy for PostgreSQL (deploy/haproxy/postgres.cfg)', () => {
  it("sends connections only to the node whose Patroni answers GET /primary, and cuts an old leader's at once", () => {
    expect(haproxy).toMatch(/^\s*mode tcp$/m);
    expect(haproxy).toMatch(/http-check send meth GET uri \/primary$/m);
    expect(haproxy).toMatch(/http-check expect status 200$/m);
    expect(haproxy).toMatch(/default-server .*on-marked-down shutdown-sessions/);
    const servers = [...haproxy.matchAll(/^\s*server (pg\d) .* check port /gm)].map((m) => m[1]);
    expect(servers).toEqual(['pg1', 'pg2', 'pg3']);
  });
});

describe('supported Node.js', () => {
  it('engines asks for 22 or later, and the image runs 24', () => {
    const pkg = JSON.parse(read('package.json')) as { engines: { node: string } };
    expect(pkg.engines.node).toBe('>=22');
    const images = [...read('deploy/Dockerfile').matchAll(/^FROM (\S+)/gm)].map((m) => m[1]);
    expect(images).toEqual(['node:24-bookworm-slim', 'node:24-bookworm-slim']);
  });
});
