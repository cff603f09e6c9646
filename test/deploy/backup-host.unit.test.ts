// Issue 39, goal 7: "The rehearsal runs the same commands the runbook shows (one source for both)",
// for the pgBackRest backup host too. The failover rehearsal runs deploy/pgbackrest/repository-host.conf
// and a node's pgbackrest.conf made the runbook's way (the commented lines added), changing only
// where things are (paths, ports, host names, certificate files) through PGBACKREST_* variables,
// never how pgBackRest behaves; and step 4's commands on the backup host are the README's.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  backupHostEnv,
  backupHostLines,
  nodeBackupEnv,
  RUNBOOK_STEP_4,
  withBackupHostLines,
} from '../../deploy/rehearsal/failover/backup-host.js';

const read = (file: string) => readFileSync(fileURLToPath(new URL(`../../${file}`, import.meta.url)), 'utf8');
const nodeShipped = read('deploy/pgbackrest/pgbackrest.conf');
const repoHost = read('deploy/pgbackrest/repository-host.conf');
const readme = read('deploy/README.md');

/** PGBACKREST_PG2_HOST_CERT_FILE -> pg2-host-cert-file */
const optionOf = (variable: string) =>
  variable
    .replace(/^PGBACKREST_/, '')
    .toLowerCase()
    .replaceAll('_', '-');
/** Options that say where something is, never how pgBackRest behaves. */
const WHERE =
  /^(config|(repo1|pg\d)-(path|port|host|host-port|host-(cert|key|ca)-file)|(log|lock)-path|tls-server-(address|port|(cert|key|ca)-file))$/;
const tls = { cert: '/r/tls/node.crt', key: '/r/tls/node.key', ca: '/r/tls/ca.crt' };
const node = { dataDir: '/r/pg1/data', pgPort: 1, serverPort: 2 };

describe("the backup host in the failover rehearsal is the runbook's", () => {
  it("a node's file is the shipped one with its commented backup-host lines added, nothing else", () => {
    const lines = backupHostLines(nodeShipped);
    expect(lines).toContain('repo1-host-type=tls');
    expect(lines).toContain('tls-server-auth=backup=invoicing');
    const made = withBackupHostLines(nodeShipped);
    expect(made.split('\n').filter((line) => !lines.includes(line))).toEqual(nodeShipped.split('\n'));
    expect(made).toMatch(/^\[global\]\nrepo1-host=/m);
  });

  it('overrides only where things are, on the node and on the backup host', () => {
    const variables = [
      ...Object.keys(nodeBackupEnv({ tls, serverPort: 1, backupPort: 2 })),
      ...Object.keys(backupHostEnv({ config: '/r/c', dir: '/r/b', tls, port: 3, nodes: [node, node, node] })),
    ];
    expect(variables.length).toBeGreaterThan(20);
    for (const variable of variables) expect(optionOf(variable), variable).toMatch(WHERE);
  });

  it('names on the backup host the three nodes repository-host.conf names, and only them', () => {
    const env = backupHostEnv({ config: '/r/c', dir: '/r/b', tls, port: 3, nodes: [node, node, node] });
    const hostsInFile = [...repoHost.matchAll(/^(pg\d)-host=/gm)].map((m) => m[1]);
    const hostsInEnv = Object.keys(env)
      .filter((v) => /^PGBACKREST_PG\d_HOST$/.test(v))
      .map((v) => optionOf(v).replace(/-host$/, ''));
    expect(hostsInEnv).toEqual(hostsInFile);
  });

  it("runs step 4's commands as the README shows them, in its order", () => {
    const step = readme.slice(readme.indexOf('**4. pgBackRest**'), readme.indexOf("**4'."));
    const shown = [...step.matchAll(/pgbackrest --stanza=invoicing ([^']+)'/g)].map((m) => m[1]!.trim());
    expect(shown).toEqual(RUNBOOK_STEP_4.map((args) => args.join(' ')));
  });

  it("says the backup host runs Debian's pgbackrest.service (`pgbackrest server`), as the rehearsal does", () => {
    const step = readme.slice(readme.indexOf("**4'."), readme.indexOf('**5.'));
    expect(step).toContain('sudo systemctl enable --now pgbackrest');
    expect(step).toContain('`pgbackrest server`');
    expect(step).toContain('deploy/pgbackrest/repository-host.conf /etc/pgbackrest.conf');
    // The rehearsal's backup host serves with the passphrase (its server encrypts the nodes' WAL).
    expect(step).toContain('EnvironmentFile=/etc/pgbackrest/server.env');
  });
});
