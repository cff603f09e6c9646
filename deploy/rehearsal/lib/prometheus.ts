// Debian's Prometheus with the shipped deploy/prometheus/prometheus.yml and alerts.yml, copied into
// the run's directory next to the targets file it reads (the three operations ports); only the
// scrape interval is shortened, so that a run of a few minutes has enough samples. Asked over its
// HTTP API, like a dashboard would; the rules are also checked with promtool from the same package.
import type { ChildProcess } from 'node:child_process';
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from '../../../scripts/lib/repo.js';
import { exitAsError, getText, signalAndWait, startLogged, waitUntil } from './processes.js';

const run = promisify(execFile);

export const PROMETHEUS_DIR = path.join(repoRoot, 'deploy/prometheus');
export const ALERT_RULES = path.join(PROMETHEUS_DIR, 'alerts.yml');
const SCRAPE_INTERVAL = '5s';

export interface Sample {
  labels: Record<string, string>;
  value: number;
}

export interface PrometheusServer {
  url: string;
  query(expression: string): Promise<Sample[]>;
  /** Rule groups Prometheus loaded from alerts.yml, with their number of rules. */
  ruleGroups(): Promise<{ name: string; rules: number }[]>;
  stop(): Promise<void>;
}

function binary(name: 'prometheus' | 'promtool'): string {
  const override = name === 'prometheus' ? process.env.PROMETHEUS_PATH : process.env.PROMTOOL_PATH;
  return override ?? `/usr/bin/${name}`;
}

/** `promtool check rules` on the shipped alert rules: its output, and whether it passed. */
export async function checkRules(file = ALERT_RULES): Promise<{ ok: boolean; output: string }> {
  if (!existsSync(file)) return { ok: false, output: `${path.relative(repoRoot, file)} does not exist` };
  try {
    const { stdout, stderr } = await run(binary('promtool'), ['check', 'rules', file], { timeout: 60_000 });
    return { ok: true, output: `${stdout}${stderr}`.trim() };
  } catch (error) {
    const failure = error as { stdout?: string; stderr?: string; message: string };
    return { ok: false, output: `${failure.stdout ?? ''}${failure.stderr ?? failure.message}`.trim() };
  }
}

export async function startPrometheus(options: {
  port: number;
  opsPorts: number[];
  runDir: string;
  logFile: string;
}): Promise<PrometheusServer> {
  const dir = path.join(options.runDir, 'prometheus');
  mkdirSync(path.join(dir, 'targets'), { recursive: true });
  const shipped = readFileSync(path.join(PROMETHEUS_DIR, 'prometheus.yml'), 'utf8');
  const config = shipped.replace(
    /^(\s*)(scrape_interval|evaluation_interval): 15s$/gm,
    `$1$2: ${SCRAPE_INTERVAL}`,
  );
  if (config === shipped)
    throw new Error('deploy/prometheus/prometheus.yml: no "scrape_interval: 15s" line to shorten');
  writeFileSync(path.join(dir, 'prometheus.yml'), config);
  if (existsSync(ALERT_RULES)) copyFileSync(ALERT_RULES, path.join(dir, 'alerts.yml'));
  else writeFileSync(path.join(dir, 'alerts.yml'), 'groups: []\n');
  writeFileSync(
    path.join(dir, 'targets', 'invoicing.json'),
    JSON.stringify([{ targets: options.opsPorts.map((port) => `127.0.0.1:${port}`) }]),
  );
  const url = `http://127.0.0.1:${options.port}`;
  const child: ChildProcess = startLogged(
    binary('prometheus'),
    [
      `--config.file=${path.join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${path.join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${options.port}`,
      '--log.level=warn',
    ],
    options.logFile,
  );
  await Promise.race([
    waitUntil('Prometheus ready', async () => (await getText(`${url}/-/ready`)).status === 200, 60_000, 250),
    exitAsError(child, 'Prometheus', options.logFile),
  ]);

  async function api<T>(pathAndQuery: string): Promise<T> {
    const { status, text } = await getText(`${url}${pathAndQuery}`, 10_000);
    const body = JSON.parse(text) as { status: string; data: T; error?: string };
    if (status !== 200 || body.status !== 'success')
      throw new Error(`Prometheus ${pathAndQuery}: ${body.error ?? status}`);
    return body.data;
  }

  return {
    url,
    async query(expression) {
      const data = await api<{ result: { metric: Record<string, string>; value: [number, string] }[] }>(
        `/api/v1/query?query=${encodeURIComponent(expression)}`,
      );
      return data.result.map((entry) => ({ labels: entry.metric, value: Number(entry.value[1]) }));
    },
    async ruleGroups() {
      const data = await api<{ groups: { name: string; rules: unknown[] }[] }>('/api/v1/rules');
      return data.groups.map((group) => ({ name: group.name, rules: group.rules.length }));
    },
    async stop() {
      await signalAndWait(child, 'SIGTERM', 15_000);
    },
  };
}
