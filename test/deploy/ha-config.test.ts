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

describe('pgBackRest on a backup host (deploy/pgbackrest/repository-host.conf, issue 39 goal 7)', () => {
  const repoHost = read('deploy/pgbackrest/repository-host.conf');
  const optionLines = (text: string) => text.split('\n').filter((l) => /^[a-z0-9-]+=/.test(l));
  const values = (text: string, name: string) =>
    [...text.matchAll(new RegExp(`^${name}=(.*)$`, 'gm'))].map((m) => m[1]);

  it('has no comment after a value, and encrypts as the nodes do with no passphrase in the file', () => {
    for (const line of optionLines(repoHost)) expect(line, line).not.toMatch(/\s#/);
    expect(values(repoHost, 'repo1-cipher-type')).toEqual(values(pgbackrest, 'repo1-cipher-type'));
    expect(repoHost).not.toMatch(/^repo1-cipher-pass=/m);
    expect(values(repoHost, 'repo1-path')).toEqual(values(pgbackrest, 'repo1-path'));
    expect(values(repoHost, 'lock-path')[0]).not.toMatch(/^\/(tmp|var\/tmp|dev\/shm)\b/);
  });

  it('serves TLS to the three database nodes only, and reaches each over TLS with the CA', () => {
    const stanza = /^\[(\w+)\]$/m.exec(pgbackrest.replace(/^\[global\]$/m, ''))?.[1];
    expect(stanza).toBe('invoicing');
    expect(values(repoHost, 'tls-server-auth')).toEqual(['pg1', 'pg2', 'pg3'].map((n) => `${n}=${stanza}`));
    for (const option of ['cert-file', 'key-file', 'ca-file'])
      expect(values(repoHost, `tls-server-${option}`)).toHaveLength(1);
    for (const n of [1, 2, 3]) {
      expect(values(repoHost, `pg${n}-host-type`)).toEqual(['tls']);
      expect(values(repoHost, `pg${n}-host-ca-file`)).toEqual(values(repoHost, 'tls-server-ca-file'));
      expect(values(repoHost, `pg${n}-path`)).toEqual(values(pgbackrest, 'pg1-path'));
    }
  });

  it("the nodes' lines for it (commented in pgbackrest.conf) use TLS and allow the backup host only", () => {
    const nodeLines = [...pgbackrest.matchAll(/^# {3}([a-z0-9-]+=.*)$/gm)].map((m) => m[1]!);
    expect(nodeLines).toContain('repo1-host-type=tls');
    expect(nodeLines).toContain('tls-server-auth=backup=invoicing');
    for (const option of [
      'repo1-host-cert-file',
      'repo1-host-key-file',
      'repo1-host-ca-file',
      'tls-server-ca-file',
    ])
      expect(
        nodeLines.some((line) => line.startsWith(`${option}=`)),
        option,
      ).toBe(true);
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

describe('a cluster only its members can steer (issue 38, goal 1): the shipped files', () => {
  const etcd = read('deploy/patroni/etcd.env');
  const env = read('deploy/invoicing.env.example');

  it('etcd: TLS for clients and peers, a client certificate required from both', () => {
    for (const name of ['LISTEN_CLIENT_URLS', 'ADVERTISE_CLIENT_URLS', 'LISTEN_PEER_URLS', 'INITIAL_CLUSTER'])
      expect(new RegExp(`^ETCD_${name}=(.*)$`, 'm').exec(etcd)?.[1], name).not.toMatch(/http:\/\//);
    for (const name of ['CLIENT_CERT_AUTH', 'PEER_CLIENT_CERT_AUTH'])
      expect(etcd).toMatch(new RegExp(`^ETCD_${name}=true$`, 'm'));
    for (const name of [
      'CERT_FILE',
      'KEY_FILE',
      'TRUSTED_CA_FILE',
      'PEER_CERT_FILE',
      'PEER_KEY_FILE',
      'PEER_TRUSTED_CA_FILE',
    ])
      expect(etcd).toMatch(new RegExp(`^ETCD_${name}=/\\S+$`, 'm'));
  });

  it("Patroni: etcd3 over https with the node's certificate; the REST API over TLS with an allowlist and client certificates", () => {
    const etcd3 = /^etcd3:\n((?:[ #].*\n)+)/m.exec(patroni)?.[1] ?? '';
    expect(etcd3).toMatch(/^\s+protocol: https\b/m);
    for (const key of ['cacert', 'cert', 'key']) expect(etcd3).toMatch(new RegExp(`^\\s+${key}: /\\S+`, 'm'));
    const restapi = /^restapi:\n((?:[ #].*\n)+)/m.exec(patroni)?.[1] ?? '';
    for (const key of ['certfile', 'keyfile', 'cafile'])
      expect(restapi).toMatch(new RegExp(`^\\s+${key}: /\\S+`, 'm'));
    expect(restapi).toMatch(/^\s+verify_client: (optional|required)\b/m);
    expect(restapi).toMatch(/^\s+allowlist:/m);
  });

  it('PostgreSQL: ssl on, only hostssl lines from the network, replication and rewind with verify-full', () => {
    expect(patroni).toMatch(/^\s+ssl: "on"/m);
    expect(patroni).toMatch(/^\s+ssl_cert_file: \S+/m);
    expect(patroni).toMatch(/^\s+ssl_key_file: \S+/m);
    const hba = [...patroni.matchAll(/^\s+- (local|host\w*) /gm)].map((m) => m[1]);
    expect(hba.length).toBeGreaterThan(2);
    expect(hba.filter((kind) => kind !== 'local' && kind !== 'hostssl')).toEqual([]);
    expect([...patroni.matchAll(/^\s+sslmode: verify-full\b/gm)]).toHaveLength(2);
  });

  it("HAProxy checks Patroni over TLS against the CA and the service's name", () => {
    expect(haproxy).toMatch(
      /default-server .*check-ssl verify required ca-file "\$\{PG_CA_FILE\}" verifyhost "\$\{PG_SERVICE_NAME\}"/,
    );
  });

  it("the service's DATABASE_URL example says sslmode=verify-full with the CA", () => {
    expect(env).toMatch(
      /^# DATABASE_URL=postgres:\/\/\S+@postgres\.invoicing\.internal:\d+\/invoicing\?sslmode=verify-full&sslrootcert=\/\S+$/m,
    );
  });

  it("pgBackRest: the lock under postgres's own directory, never /tmp; the repository encrypted, the passphrase not in the file", () => {
    const lock = /^lock-path=(.*)$/m.exec(pgbackrest)?.[1];
    expect(lock).toBeDefined();
    expect(lock).not.toMatch(/^\/(tmp|var\/tmp|dev\/shm)\b/);
    expect(pgbackrest).toMatch(/^repo1-cipher-type=aes-256-cbc$/m);
    expect(pgbackrest).not.toMatch(/^repo1-cipher-pass=/m);
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
