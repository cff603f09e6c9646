// `npm run audit:deps`: the packages of package-lock.json checked against known vulnerabilities,
// in the first way that works here:
// 1. `npm audit` (the registry's advisory endpoint, the GitHub Advisory Database behind it);
// 2. an offline OSV database (the GitHub Advisory Database in OSV form: OSV's export of the npm
//    ecosystem, all.zip, unpacked): a folder of OSV JSON files named by OSV_OFFLINE_DB;
//    `--offline` goes straight to it;
// 3. neither: it says plainly, in a banner, that NOTHING was checked. Never silent.
// Exit status: 0 checked and clean (or not checked, unless --strict), 1 a vulnerability of at least
// moderate severity was found, 2 not checked with --strict.
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import semver from 'semver';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

export interface LockedPackage {
  name: string;
  version: string;
}

/** Every installed package of a lockfile (v2/v3), its workspaces' own packages left out. */
export function lockedPackages(lockText: string): LockedPackage[] {
  const lock = JSON.parse(lockText) as { packages?: Record<string, { version?: string; link?: boolean }> };
  const seen = new Map<string, LockedPackage>();
  for (const [path, entry] of Object.entries(lock.packages ?? {})) {
    const at = path.lastIndexOf('node_modules/');
    if (at < 0 || entry.link || !entry.version) continue;
    const name = path.slice(at + 'node_modules/'.length);
    seen.set(`${name}@${entry.version}`, { name, version: entry.version });
  }
  return [...seen.values()];
}

interface OsvEvent {
  introduced?: string;
  fixed?: string;
  last_affected?: string;
}
interface OsvRecord {
  id: string;
  summary?: string;
  aliases?: string[];
  withdrawn?: string;
  database_specific?: { severity?: string };
  affected?: {
    package?: { ecosystem?: string; name?: string };
    versions?: string[];
    ranges?: { type?: string; events?: OsvEvent[] }[];
  }[];
}

/** Whether `version` falls in one OSV range (events in order: introduced, then fixed or last_affected). */
function inRange(version: string, events: OsvEvent[]): boolean {
  let affected = false;
  for (const event of events) {
    if (event.introduced !== undefined) {
      if (event.introduced === '0' || semver.gte(version, event.introduced, { loose: true })) affected = true;
    } else if (event.fixed !== undefined) {
      if (semver.gte(version, event.fixed, { loose: true })) affected = false;
    } else if (event.last_affected !== undefined) {
      if (semver.gt(version, event.last_affected, { loose: true })) affected = false;
    }
  }
  return affected;
}

export interface Finding {
  package: string;
  version: string;
  id: string;
  severity: string;
  summary: string;
}

/** The findings of OSV records (npm ecosystem) for the locked packages. */
export function matchOsv(packages: LockedPackage[], records: OsvRecord[]): Finding[] {
  const byName = new Map<string, LockedPackage[]>();
  for (const locked of packages) byName.set(locked.name, [...(byName.get(locked.name) ?? []), locked]);
  const findings: Finding[] = [];
  for (const record of records) {
    if (record.withdrawn) continue;
    for (const affected of record.affected ?? []) {
      if (affected.package?.ecosystem !== 'npm' || !affected.package.name) continue;
      for (const locked of byName.get(affected.package.name) ?? []) {
        if (!semver.valid(locked.version, { loose: true })) continue;
        const listed = affected.versions?.includes(locked.version) ?? false;
        const ranged = (affected.ranges ?? []).some(
          (range) => range.type === 'SEMVER' && inRange(locked.version, range.events ?? []),
        );
        if (listed || ranged) {
          findings.push({
            package: locked.name,
            version: locked.version,
            id: record.aliases?.find((alias) => alias.startsWith('GHSA-')) ?? record.id,
            severity: (record.database_specific?.severity ?? 'unknown').toLowerCase(),
            summary: record.summary ?? '',
          });
        }
      }
    }
  }
  return findings;
}

/** Every OSV record under a folder (recursively). */
function readOsvFolder(folder: string): OsvRecord[] {
  const records: OsvRecord[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.json')) records.push(JSON.parse(readFileSync(path, 'utf8')) as OsvRecord);
    }
  };
  walk(folder);
  return records;
}

type NpmAudit = { ok: true; findings: Finding[] } | { ok: false; why: string };

/** `npm audit` on the lockfile alone; `ok: false` with the reason when it cannot reach its endpoint. */
function runNpmAudit(cwd: string): Promise<NpmAudit> {
  return new Promise((resolve) => {
    execFile(
      'npm',
      ['audit', '--package-lock-only', '--json'],
      { cwd, timeout: 120_000, maxBuffer: 64 * 1024 * 1024 },
      (_error, stdout, stderr) => {
        let report: {
          vulnerabilities?: Record<string, { severity: string; via: unknown[]; range?: string }>;
          message?: string;
          error?: { summary?: string };
        };
        try {
          report = JSON.parse(stdout);
        } catch {
          resolve({ ok: false, why: (stderr || 'npm audit printed no report').trim().split('\n')[0] ?? '' });
          return;
        }
        if (!report.vulnerabilities) {
          resolve({
            ok: false,
            why: report.message ?? report.error?.summary ?? stderr.trim().split('\n')[0] ?? 'no report',
          });
          return;
        }
        const findings = Object.entries(report.vulnerabilities).map(([name, entry]) => {
          const advisory = entry.via.find(
            (via): via is { title?: string; url?: string } => typeof via === 'object',
          );
          return {
            package: name,
            version: entry.range ?? '',
            id: advisory?.url ?? 'via a dependency',
            severity: entry.severity,
            summary: advisory?.title ?? '',
          };
        });
        resolve({ ok: true, findings });
      },
    );
  });
}

const SERIOUS = new Set(['moderate', 'medium', 'high', 'critical', 'unknown']);

async function main(): Promise<number> {
  const strict = process.argv.includes('--strict');
  const packages = lockedPackages(readFileSync(join(ROOT, 'package-lock.json'), 'utf8'));
  const audit: NpmAudit = process.argv.includes('--offline')
    ? { ok: false, why: 'not asked (--offline)' }
    : await runNpmAudit(ROOT);
  let source: string;
  let findings: Finding[];
  if (audit.ok) {
    source = 'npm audit (the registry advisory endpoint)';
    findings = audit.findings;
  } else if (process.env.OSV_OFFLINE_DB) {
    const records = readOsvFolder(process.env.OSV_OFFLINE_DB);
    source = `the offline OSV database ${process.env.OSV_OFFLINE_DB} (${records.length} records; npm audit: ${audit.why})`;
    findings = matchOsv(packages, records);
  } else {
    const rule = '!'.repeat(78);
    process.stdout.write(
      [
        rule,
        `DEPENDENCY AUDIT NOT DONE: the ${packages.length} packages of package-lock.json were NOT checked`,
        'for known vulnerabilities.',
        `- npm audit could not reach its advisory endpoint: ${audit.why}`,
        '- no offline advisory database: set OSV_OFFLINE_DB to a folder of OSV records of the npm',
        "  ecosystem (OSV's export of it, all.zip, unpacked) to check offline.",
        rule,
        '',
      ].join('\n'),
    );
    return strict ? 2 : 0;
  }
  const serious = findings.filter((finding) => SERIOUS.has(finding.severity));
  process.stdout.write(
    `dependency audit: ${packages.length} packages of package-lock.json checked with ${source}\n`,
  );
  for (const finding of findings) {
    process.stdout.write(
      `  ${finding.severity.padEnd(8)} ${finding.package}@${finding.version} ${finding.id} ${finding.summary}\n`,
    );
  }
  process.stdout.write(
    `dependency audit: ${findings.length} known vulnerabilities, ${serious.length} of moderate severity or more\n`,
  );
  return serious.length > 0 ? 1 : 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(
        `dependency audit failed: ${error instanceof Error ? error.message : String(error)}\n`,
      );
      process.exit(2);
    },
  );
}
