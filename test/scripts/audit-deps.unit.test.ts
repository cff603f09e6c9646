// The dependency audit (issue 38, goal 5: "A dependency audit that works where the advisory
// endpoint is unreachable ... If none can run here, CI says so plainly in its output (never
// silently)"): the lockfile's packages matched against OSV records, and the script as a process.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { lockedPackages, matchOsv } from '../../scripts/audit-deps.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const run = (args: string[], env: Record<string, string> = {}) =>
  promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/audit-deps.ts', ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    timeout: 180_000,
  }).then(
    (result) => ({ code: 0, stdout: result.stdout }),
    (error: { code: number; stdout: string }) => ({ code: error.code, stdout: error.stdout }),
  );

/** An OSV record as the GitHub Advisory Database publishes it (shape kept, content made up). */
const record = (name: string, events: object[], extra: object = {}) => ({
  id: `GHSA-test-${name}`,
  aliases: [],
  summary: `made-up advisory of ${name}`,
  database_specific: { severity: 'HIGH' },
  affected: [{ package: { ecosystem: 'npm', name }, ranges: [{ type: 'SEMVER', events }] }],
  ...extra,
});

describe('dependency audit', () => {
  it('reads every installed package of the lockfile, nested ones too, never the workspaces themselves', () => {
    const lock = JSON.stringify({
      lockfileVersion: 3,
      packages: {
        '': { name: 'app' },
        'node_modules/a': { version: '1.2.3' },
        'node_modules/a/node_modules/b': { version: '0.1.0' },
        'node_modules/@scope/c': { version: '2.0.0' },
        'node_modules/@invoicing/partner-api': { link: true, resolved: 'clients/typescript' },
        'clients/typescript': { version: '1.0.0' },
      },
    });
    expect(lockedPackages(lock)).toEqual([
      { name: 'a', version: '1.2.3' },
      { name: 'b', version: '0.1.0' },
      { name: '@scope/c', version: '2.0.0' },
    ]);
  });

  it('finds a locked version inside an OSV range, and none outside it or in a withdrawn record', () => {
    const packages = [
      { name: 'a', version: '1.2.3' },
      { name: 'b', version: '0.1.0' },
    ];
    const findings = matchOsv(packages, [
      record('a', [{ introduced: '0' }, { fixed: '1.2.4' }]),
      record('a', [{ introduced: '1.3.0' }, { fixed: '1.4.0' }]),
      record('b', [{ introduced: '0' }, { last_affected: '0.0.9' }]),
      record('b', [{ introduced: '0' }], { withdrawn: '2026-01-01T00:00:00Z' }),
    ] as never);
    expect(findings).toEqual([
      {
        package: 'a',
        version: '1.2.3',
        id: 'GHSA-test-a',
        severity: 'high',
        summary: 'made-up advisory of a',
      },
    ]);
  });

  it('as a process: never silent; with an offline database it checks package-lock.json and fails on a finding', {
    timeout: 200_000,
  }, async () => {
    const plain = await run(['--offline'], { OSV_OFFLINE_DB: '' });
    expect(plain.code).toBe(0);
    expect(plain.stdout).toMatch(
      /DEPENDENCY AUDIT NOT DONE: the \d+ packages of package-lock.json were NOT checked/,
    );
    expect((await run(['--offline', '--strict'], { OSV_OFFLINE_DB: '' })).code).toBe(2);

    const db = await mkdtemp(join(tmpdir(), 'osv-'));
    try {
      const locked = lockedPackages(
        await import('node:fs').then((fs) => fs.readFileSync(join(ROOT, 'package-lock.json'), 'utf8')),
      ).find((entry) => entry.name === 'decimal.js');
      expect(locked).toBeDefined();
      await writeFile(
        join(db, 'clean.json'),
        JSON.stringify(record('decimal.js', [{ introduced: '0' }, { fixed: '1.0.0' }])),
      );
      const clean = await run(['--offline'], { OSV_OFFLINE_DB: db });
      expect(clean.stdout).toMatch(/packages of package-lock.json checked with the offline OSV database/);
      expect(clean.stdout).toContain('0 known vulnerabilities');
      expect(clean.code).toBe(0);

      await writeFile(
        join(db, 'hit.json'),
        JSON.stringify(record('decimal.js', [{ introduced: '0' }, { last_affected: locked!.version }])),
      );
      const hit = await run(['--offline'], { OSV_OFFLINE_DB: db });
      expect(hit.code).toBe(1);
      expect(hit.stdout).toContain(`decimal.js@${locked!.version} GHSA-test-decimal.js`);
    } finally {
      await rm(db, { recursive: true, force: true });
    }
  });
});
