// `npm run bench`: the measuring harness of the performance issue. See the README, "Performance".
// Builds or reuses the data set, starts the API (PostgreSQL, then PGlite) and the bare
// node:http + pg yardstick, runs the case groups, prints one table and writes
// bench/results/latest.json and the page of the latest run, bench/README.md.
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { parseOptions, positiveInteger } from '../scripts/lib/args.js';
import { installCleanup, stopAllChildren } from '../scripts/lib/children.js';
import { repoRoot } from '../scripts/lib/repo.js';
import { runCompression } from './cases/compression.js';
import type { BenchContext, RunOptions } from './cases/context.js';
import { runDeepPages } from './cases/deep.js';
import { runLists } from './cases/lists.js';
import { memoryRow } from './cases/memory.js';
import { runPglite } from './cases/pglite.js';
import { type ProfiledServer, profileTable } from './cases/profile.js';
import { runRequestLog } from './cases/request-log.js';
import { REQUEST_LOG_ROWS, runRequestLogScale } from './cases/request-log-scale.js';
import { runThroughput } from './cases/throughput.js';
import { runTracing } from './cases/tracing.js';
import { runWalk } from './cases/walk.js';
import { runWrites } from './cases/writes.js';
import { ensureDataset } from './dataset/ensure.js';
import { DEFAULT_INVOICES } from './dataset/sizes.js';
import { prepareBefore } from './lib/before.js';
import { closeConnections } from './lib/http.js';
import { createKey, invoicing } from './lib/invoicing-cli.js';
import { describeMachine } from './lib/machine.js';
import { benchDir, ensureDir, resultsDir } from './lib/paths.js';
import { queryRows, withClient } from './lib/postgres.js';
import { readMemory, sampleRss } from './lib/rss.js';
import { cpuProfileArgs, describeApiServer, startApiServer, startBareServer } from './lib/servers.js';
import { chooseLoadTool } from './load/index.js';
import { READ_GOALS } from './read-goals.js';
import { writeBenchReadme, writeRequestLogSection } from './readme.js';
import { describeMachine as describeRun, Report, type RunMeta } from './report.js';

const GROUPS = [
  'throughput',
  'request-log',
  'tracing',
  'compression',
  'lists',
  'deep',
  'writes',
  'walk',
  'pglite',
  'request-log-scale',
] as const;
const RUNNERS: Record<(typeof GROUPS)[number], (context: BenchContext) => Promise<void>> = {
  throughput: runThroughput,
  'request-log': runRequestLog,
  tracing: runTracing,
  compression: runCompression,
  lists: runLists,
  deep: runDeepPages,
  writes: runWrites,
  walk: runWalk,
  pglite: runPglite,
  'request-log-scale': async (context) => {
    await runRequestLogScale({
      rows: context.options.logRows,
      fresh: false,
      samples: context.options.samples,
      report: context.report,
      log: context.log,
    });
  },
};

const USAGE = `usage: npm run bench -- [options]
  --invoices N          data set size (default ${DEFAULT_INVOICES}); generated first when missing
  --fresh               rebuild the data set even if it exists
  --log-rows N          rows of the request log's data set (default ${REQUEST_LOG_ROWS}); --only request-log-scale
                        runs that group alone (no invoices' data set, no servers) and rewrites its section
                        of bench/README.md
  --quick               short smoke run: 2 rounds of 3 s, 3 samples, 10 writes, walk of 20 pages
  --only G[,G...]       run only these groups: ${GROUPS.join(', ')}
  --no-walk / --walk    skip / run the page-by-page walk (default: on)
  --walk-pages K        walk pages 1..K, then the last 10 (default: all pages)
  --walk-max-minutes M  shorten the walk the same way once it has run M minutes (default 20)
  --rounds R --seconds S --connections C --threads T   throughput settings (5, 10, 32, 2)
  --tool wrk|autocannon force a load generator (default: wrk when on PATH)
  --profile             record the servers with --cpu-prof: CPU per read by component in the
                        throughput group (profiles in bench/results/profiles/)
  --before REF          also run the API of git ref REF (built once in its own work tree), side by
                        side with this code: throughput rows, its profile, its cold list maxima
  --strict              exit 1 when a goal is not met`;

function readOptions(): RunOptions & { fresh: boolean; tool?: string; strict: boolean } {
  const values = parseOptions(
    {
      invoices: { type: 'string' },
      fresh: { type: 'boolean' },
      'log-rows': { type: 'string' },
      quick: { type: 'boolean' },
      only: { type: 'string' },
      walk: { type: 'boolean' },
      'no-walk': { type: 'boolean' },
      'walk-pages': { type: 'string' },
      'walk-max-minutes': { type: 'string' },
      rounds: { type: 'string' },
      seconds: { type: 'string' },
      connections: { type: 'string' },
      threads: { type: 'string' },
      tool: { type: 'string' },
      strict: { type: 'boolean' },
      profile: { type: 'boolean' },
      before: { type: 'string' },
    },
    USAGE,
  );
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const text = (name: string) => (values as Record<string, unknown>)[name] as string | undefined;
  const quick = Boolean(values.quick);
  const groups = new Set(text('only')?.split(',') ?? GROUPS);
  for (const group of groups) {
    if (!(GROUPS as readonly string[]).includes(group)) {
      process.stderr.write(`unknown group "${group}"\n\n${USAGE}\n`);
      process.exit(2);
    }
  }
  return {
    invoices: positiveInteger(text('invoices'), '--invoices', DEFAULT_INVOICES),
    fresh: Boolean(values.fresh),
    logRows: positiveInteger(text('log-rows'), '--log-rows', REQUEST_LOG_ROWS),
    quick,
    groups,
    rounds: positiveInteger(text('rounds'), '--rounds', quick ? 2 : 5),
    seconds: positiveInteger(text('seconds'), '--seconds', quick ? 3 : 10),
    warmupSeconds: quick ? 2 : 5,
    connections: positiveInteger(text('connections'), '--connections', 32),
    threads: positiveInteger(text('threads'), '--threads', 2),
    samples: quick ? 3 : 5,
    writeRequests: quick ? 10 : 60,
    walk: !values['no-walk'],
    walkPages: text('walk-pages') ? positiveInteger(text('walk-pages'), '--walk-pages', 0) : quick ? 20 : 0,
    walkMaxMinutes: positiveInteger(text('walk-max-minutes'), '--walk-max-minutes', 20),
    pgliteCustomers: 5000,
    profile: Boolean(values.profile),
    before: text('before'),
    tool: text('tool'),
    strict: Boolean(values.strict),
  };
}

/** The commit measured, marked when the work tree had changes to anything but pages (*.md). */
function codeVersion(): string {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repoRoot, encoding: 'utf8' }).trim();
  try {
    const changed = git('status', '--porcelain', '--', '.', ':(exclude)*.md') !== '';
    return `${git('rev-parse', '--short', 'HEAD')}${changed ? ' with uncommitted changes' : ''}`;
  } catch {
    return 'unknown (not a git checkout)';
  }
}

/** Leftovers of bench/explain.ts (auto_explain settings) would slow every request: removed. */
async function prepareDatabase(url: string, database: string, log: (line: string) => void): Promise<void> {
  await withClient(url, (client) => client.query(`alter database "${database}" reset all`));
  const count = async () =>
    (await queryRows<{ n: number }>(url, 'select count(*)::int as n from drizzle.__drizzle_migrations'))[0]
      ?.n ?? 0;
  const before = await count();
  await invoicing({ databaseUrl: url }, ['migrate']);
  if ((await count()) !== before) {
    log('New migrations were applied to the data set: ANALYZE');
    await withClient(url, (client) => client.query('analyze'));
  }
}

/** `--only request-log-scale`: its own data set, no servers; its rows replace its section of the page. */
async function runRequestLogScaleAlone(options: ReturnType<typeof readOptions>): Promise<number> {
  const log = (line: string) => process.stdout.write(`${line}\n`);
  const report = new Report();
  log('\n== request-log-scale');
  const dataset = await runRequestLogScale({
    rows: options.logRows,
    fresh: options.fresh,
    samples: options.samples,
    report,
    log,
  });
  const meta: RunMeta = {
    date: new Date().toISOString(),
    machine: await describeMachine(dataset.url),
    tool: 'in-process operations (src/operations/requests/) on a pool of 4 connections',
    server: '-',
    settings: { samples: options.samples, groups: ['request-log-scale'] },
    dataset: {
      database: dataset.database,
      request_log_rows: dataset.rows,
      sizeGb: Number((dataset.sizeBytes / 1024 ** 3).toFixed(2)),
    },
  };
  report.writeJson(`${resultsDir}/request-log-scale.json`, meta);
  writeRequestLogSection(`${benchDir}README.md`, report, meta, codeVersion());
  log(
    `\n${report.table()}\n\n${report.summaryLine()}\nWritten: bench/results/request-log-scale.json, bench/README.md`,
  );
  return options.strict && report.rows.some((row) => row.pass === false) ? 1 : 0;
}

async function main(): Promise<number> {
  const options = readOptions();
  installCleanup();
  ensureDir(resultsDir);
  if (options.groups.size === 1 && options.groups.has('request-log-scale')) {
    return runRequestLogScaleAlone(options);
  }
  const log = (line: string) => process.stdout.write(`${line}\n`);
  // The server must run the compiled build: bin/invoicing falls back to the TypeScript sources
  // (through tsx: slower, larger) when they are newer than dist/, which would skew every number.
  log('Building dist/ (npm run build)');
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: repoRoot, stdio: 'inherit' });
  const dataset = await ensureDataset({ invoices: options.invoices, fresh: options.fresh, log });
  await prepareDatabase(dataset.url, dataset.database, log);
  const target = { databaseUrl: dataset.url };
  const readKey = await createKey(target, dataset.mainCompany);
  const writeKey = await createKey(target, dataset.mainCompany);
  const customerIdsFile = `${resultsDir}/customer-ids.txt`;
  const ids = await queryRows<{ id: number }>(
    dataset.url,
    'select id from customers where company_id = $1 order by id',
    [dataset.mainCompany],
  );
  writeFileSync(customerIdsFile, `${ids.map((row) => row.id).join('\n')}\n`);

  const tool = await chooseLoadTool(options.tool);
  log(`Load generator: ${tool.name}`);
  const checkout = options.before ? prepareBefore(options.before, log) : undefined;
  const profileDir = (name: string) => {
    const directory = `${resultsDir}/profiles/${name}`;
    rmSync(directory, { recursive: true, force: true });
    return ensureDir(directory);
  };
  const nodeArgs = (name: string) => (options.profile ? cpuProfileArgs(profileDir(name)) : []);
  const bare = await startBareServer(dataset.url, dataset.mainCompany, `${resultsDir}/bare-server.log`, {
    nodeArgs: nodeArgs('bare'),
  });
  const api = await startApiServer(
    'API on PostgreSQL',
    target,
    `${resultsDir}/api-postgres.log`,
    {},
    {
      nodeArgs: nodeArgs('api'),
    },
  );
  log(`API ${api.url} (pid ${api.pid}), bare ${bare.url} (pid ${bare.pid})`);
  const beforeApi =
    checkout &&
    (await startApiServer(
      `API before (${checkout.ref})`,
      target,
      `${resultsDir}/api-postgres-before.log`,
      {},
      { nodeArgs: nodeArgs('api-before'), root: checkout.root },
    ));
  if (beforeApi)
    log(`API before (${checkout.ref}, ${checkout.commit}) ${beforeApi.url} (pid ${beforeApi.pid})`);
  const profiled = (label: string, name: string, pid: number): ProfiledServer => ({
    label,
    directory: `${resultsDir}/profiles/${name}`,
    pid,
    runs: [],
  });
  const report = new Report();
  const context: BenchContext = {
    options,
    dataset,
    tool,
    api,
    bare,
    readKey: readKey.key,
    writeKey,
    customerIdsFile,
    report,
    log,
    before: checkout && beforeApi ? { checkout, api: beforeApi } : undefined,
    profiles: options.profile
      ? {
          api: profiled('API', 'api', api.pid),
          bare: profiled('bare', 'bare', bare.pid),
          before:
            checkout && beforeApi
              ? profiled(`API before (${checkout.commit})`, 'api-before', beforeApi.pid)
              : undefined,
        }
      : undefined,
  };
  const apiRss = sampleRss(api.pid);
  const started = Date.now();
  for (const group of GROUPS) {
    if (!options.groups.has(group) || (group === 'walk' && !options.walk)) continue;
    log(`\n== ${group}`);
    const groupStarted = Date.now();
    try {
      await RUNNERS[group](context);
    } catch (error) {
      log(`  ${group} failed: ${(error as Error).stack ?? error}`);
      report.add({
        group,
        case: `${group}: harness error`,
        metric: '-',
        api: '-',
        bare: '-',
        ratio: (error as Error).message.slice(0, 120),
        goal: '-',
        pass: false,
      });
    }
    log(`  (${group}: ${((Date.now() - groupStarted) / 1000).toFixed(0)} s)`);
  }
  if (options.groups.has('throughput')) {
    memoryRow(
      context,
      'API server memory on PostgreSQL',
      apiRss.stop(),
      readMemory(api.pid).hwmMb,
      READ_GOALS.rssPostgresMb,
    );
  }
  closeConnections();
  // The servers write their CPU profiles as they exit.
  await stopAllChildren();
  // (only the throughput group's rounds are profiled)
  if (context.profiles && context.profiles.api.runs.length > 0) {
    const { api: apiProfile, bare: bareProfile, before: beforeProfile } = context.profiles;
    report.profile = profileTable(
      [apiProfile, ...(beforeProfile ? [beforeProfile] : []), bareProfile],
      'Where a read’s CPU goes (GET /customers/{id}, `--profile`)',
    );
    log(`\n${report.profileMarkdown()}`);
  }

  const meta: RunMeta = {
    date: new Date().toISOString(),
    machine: await describeMachine(dataset.url),
    tool: `${tool.name} (-t${options.threads} -c${options.connections}, ${options.rounds} rounds of ${options.seconds} s)`,
    server: describeApiServer(),
    settings: {
      ...options,
      groups: [...options.groups],
      minutes: Math.round((Date.now() - started) / 60_000),
    },
    dataset: {
      database: dataset.database,
      ...dataset.counts,
      sizeGb: Number((dataset.sizeBytes / 1024 ** 3).toFixed(2)),
    },
  };
  report.writeJson(`${resultsDir}/latest.json`, meta);
  writeBenchReadme(`${benchDir}README.md`, report, meta, {
    command: ['npm run bench', ...(process.argv.length > 2 ? ['--', ...process.argv.slice(2)] : [])].join(
      ' ',
    ),
    commit: codeVersion(),
  });
  log(
    `\n${report.table()}\n\n${report.summaryLine()}\n${describeRun(meta)}\nWritten: bench/results/latest.json, bench/README.md`,
  );
  return options.strict && report.rows.some((row) => row.pass === false) ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  async (error) => {
    process.stderr.write(`bench failed: ${(error as Error).stack ?? error}\n`);
    await stopAllChildren();
    process.exit(1);
  },
);
