#!/usr/bin/env node
// Measures how long `bin/invoicing serve --json` takes to answer its ready line and the process's
// resident memory then and after 200 requests, on an embedded database that already exists (a later
// start: no demo) and, with DATABASE_URL, on PostgreSQL. Also the time of `bin/invoicing --help`.
//   node scripts/measure-start.mjs [runs]     (prints medians)
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../bin/invoicing', import.meta.url));
const runs = Number(process.argv[2] ?? 5);

function rssMiB(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)[1]) / 1024;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function once(env) {
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, [BIN, 'serve', '--json'], {
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr.on('data', (c) => (err += c));
  const ready = await new Promise((resolve, reject) => {
    child.stdout.on('data', (c) => {
      out += c;
      if (out.includes('\n')) resolve(JSON.parse(out.slice(0, out.indexOf('\n'))));
    });
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${err}`)));
  });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  const rssReady = rssMiB(child.pid);
  for (let i = 0; i < 200; i++) await fetch(`${ready.api_base_url}/ping`).then((r) => r.arrayBuffer());
  const rssAfter = rssMiB(child.pid);
  const exited = new Promise((resolve) => child.on('exit', resolve));
  child.kill('SIGTERM');
  await exited;
  return { ms, rssReady, rssAfter, demo: ready.demo !== null };
}

async function series(label, env) {
  const results = [];
  for (let i = 0; i < runs; i++) results.push(await once(env));
  console.log(
    `${label}: ready in ${median(results.map((r) => r.ms)).toFixed(0)} ms, ` +
      `RSS ${median(results.map((r) => r.rssReady)).toFixed(1)} MiB at ready, ` +
      `${median(results.map((r) => r.rssAfter)).toFixed(1)} MiB after 200 requests (median of ${runs})`,
  );
}

const dir = await mkdtemp(join(tmpdir(), 'measure-start-'));
try {
  const dataEnv = { DATA_DIR: join(dir, 'data') };
  await once(dataEnv); // first start: creates and migrates the database; not counted
  await series('embedded PGlite, later start', dataEnv);
  if (process.env.DATABASE_URL) await series('PostgreSQL', { DATABASE_URL: process.env.DATABASE_URL });
  const help = [];
  for (let i = 0; i < runs; i++) {
    const t = process.hrtime.bigint();
    spawnSync(process.execPath, [BIN, '--help']);
    help.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  console.log(`bin/invoicing --help: ${median(help).toFixed(0)} ms (median of ${runs})`);
} finally {
  await rm(dir, { recursive: true, force: true });
}
