// Issue 38, goal 1, "an unauthenticated etcdctl put is refused": the failover rehearsal's probe
// (deploy/rehearsal/failover/members-only.ts) and its judgement, on a real etcd started as
// deploy/patroni/etcd.env had it before (plain http, no authentication: the put goes through and
// the goal is missed) and as it has it now (TLS, client certificates required: refused, while a
// member's certificate still reads). Needs Debian's etcd (scripts/ensure-patroni.sh, run by
// `npm run test:deploy`).
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Etcd, type PatroniNode, startEtcd } from '../../deploy/rehearsal/failover/cluster.js';
import { judgeMembersOnly } from '../../deploy/rehearsal/failover/judge.js';
import { etcdMember, etcdOutsiders } from '../../deploy/rehearsal/failover/members-only.js';
import { type Certificates, makeCertificates } from '../../deploy/rehearsal/failover/tls.js';
import {
  freePorts,
  getText,
  signalAndWait,
  startLogged,
  stopAllChildren,
  waitUntil,
} from '../../deploy/rehearsal/lib/processes.js';

let dir: string;
let certificates: Certificates;
let member: PatroniNode;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'invoicing-members-only-'));
  certificates = await makeCertificates(path.join(dir, 'ca'), ['etcd1', 'pg1']);
  // etcdMember reads only a node's name and certificate files.
  member = { name: 'pg1', tls: { ...certificates.cert('pg1'), ca: certificates.ca } } as PatroniNode;
});

afterAll(async () => {
  await stopAllChildren();
  rmSync(dir, { recursive: true, force: true });
});

describe('an unauthenticated etcdctl put (issue 38, goal 1)', () => {
  it('goes through on etcd as shipped before (plain http, no authentication): the goal is missed', async () => {
    const [client, peer] = await freePorts(2);
    const child: ChildProcess = startLogged(
      'etcd',
      [
        ...['--name', 'etcd1', '--data-dir', path.join(dir, 'plain')],
        ...['--listen-client-urls', `http://127.0.0.1:${client}`],
        ...['--advertise-client-urls', `http://127.0.0.1:${client}`],
        ...['--listen-peer-urls', `http://127.0.0.1:${peer}`],
        ...['--initial-advertise-peer-urls', `http://127.0.0.1:${peer}`],
        ...['--initial-cluster', `etcd1=http://127.0.0.1:${peer}`],
      ],
      path.join(dir, 'etcd-plain.log'),
    );
    try {
      await waitUntil(
        'plain etcd healthy',
        async () => (await getText(`http://127.0.0.1:${client}/health`)).text.includes('true'),
        30_000,
        200,
      );
      const etcd = { url: `127.0.0.1:${client}`, endpoint: `http://127.0.0.1:${client}` } as Etcd;
      const outsiders = await etcdOutsiders(etcd, certificates.ca);
      expect(outsiders.some((attempt) => !attempt.refused)).toBe(true);
      expect(judgeMembersOnly(outsiders, [await etcdMember(etcd, member)]).met).toBe(false);
    } finally {
      await signalAndWait(child, 'SIGTERM', 10_000);
    }
  });

  it("is refused by etcd as shipped now (TLS, client certificates required), while a member's certificate reads", async () => {
    const [client, peer] = await freePorts(2);
    const etcd = await startEtcd(dir, client!, peer!, path.join(dir, 'etcd-tls.log'), certificates);
    try {
      const outsiders = await etcdOutsiders(etcd, certificates.ca);
      expect(outsiders.map((attempt) => attempt.refused)).toEqual([true, true]);
      const insider = await etcdMember(etcd, member);
      expect(insider.refused, insider.detail).toBe(false);
      expect(judgeMembersOnly(outsiders, [insider]).met).toBe(true);
    } finally {
      await etcd.stop();
    }
  });
});
