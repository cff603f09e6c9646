// The goals of the rehearsal, judged from every request's record, the events' windows, the
// database, the lists the API answers, Prometheus and promtool. Each goal says whether it was met
// and what was seen.
import { setTimeout as sleep } from 'node:timers/promises';
import { countRows, exactlyOnce } from './checks.js';
import type { Load } from './load.js';
import { waitUntil } from './processes.js';
import { seconds } from './progress.js';
import { checkRules } from './prometheus.js';
import { isRetryable, type RequestRecord } from './recorder.js';
import { type EventWindow, endedWithin, failuresByKind, type Goal, latency } from './report.js';
import { crashes, INSTANCES, type Stack } from './stack.js';

export interface Judged {
  records: RequestRecord[];
  /** Every event, the steady load first. */
  events: EventWindow[];
  restarts: EventWindow[];
  /** SIGKILL, Redis and PostgreSQL restarts. */
  faults: EventWindow[];
  hold: EventWindow;
  holdP99Ratio: number;
  stack: Stack;
  load: Load;
  runId: string;
}

export async function judge(input: Judged): Promise<{ goals: Goal[]; notes: string[] }> {
  const { records, events, restarts, faults, hold, holdP99Ratio, stack, load, runId } = input;
  const { receivers } = stack;
  const goals: Goal[] = [];
  const notes: string[] = [];
  const inWindow = (from: number, to: number) => endedWithin(records, from, to);

  const failedEvents = events.filter((e) => e.failed);
  goals.push({
    name: 'every event carried out, no instance exited unasked',
    met: failedEvents.length === 0 && crashes.length === 0,
    detail:
      [
        ...failedEvents.map((e) => `${e.name}: ${e.detail}`),
        ...crashes.map((c) => {
          const during = events.filter((e) => e.start <= c.at).pop();
          return `${c.name} crashed (${c.exit}) at ${seconds(c.at)}${during ? `, during/after "${during.name}"` : ''}`;
        }),
      ].join('; ') || `${events.length - 1} events, no crash`,
  });

  const restartRecords = inWindow(restarts[0]!.start, restarts[restarts.length - 1]!.until);
  const restartFailures = failuresByKind(restartRecords);
  goals.push({
    name: 'rolling restart (SIGTERM, start, ready, one instance after the other): 0 failed requests',
    met: restartFailures.size === 0,
    detail:
      `${restartRecords.length} requests, ${[...restartFailures.values()].reduce((a, b) => a + b, 0)} failed ${
        restartFailures.size
          ? `(${[...restartFailures.entries()].map(([k, n]) => `${n}x ${k}`).join(', ')})`
          : ''
      }`.trim(),
  });

  const faultRecords = inWindow(faults[0]!.start, faults[faults.length - 1]!.until);
  const notRetryable = failuresByKind(faultRecords.filter((r) => !isRetryable(r.outcome)));
  const faultFailures = faultRecords.filter((r) => r.outcome !== 'ok').length;
  goals.push({
    name: 'SIGKILL, Redis and PostgreSQL restarts: only retryable answers',
    met: notRetryable.size === 0,
    detail: `${faultRecords.length} requests, ${faultFailures} failed, ${
      notRetryable.size === 0
        ? 'all retryable (429, 409 in flight, 503 with Retry-After, no answer)'
        : `not retryable: ${[...notRetryable.entries()].map(([k, n]) => `${n}x ${k}`).join(', ')}`
    }`,
  });

  const once = await exactlyOnce(stack.databaseUrl, runId, load.writes);
  goals.push({
    name: 'every write exists exactly once (retried ones included)',
    met: once.wrong.length === 0 && once.strangers === 0 && once.writes > 0,
    detail: `${once.writes} writes, ${once.retried} retried by the client; ${
      once.wrong.length === 0
        ? 'each once'
        : `${once.wrong.length} not once: ${once.wrong
            .slice(0, 5)
            .map((w) => `${w.marker} x${w.count} (${w.retries} retries)`)
            .join(', ')}`
    }${once.strangers ? `; ${once.strangers} rows no write made` : ''}`,
  });

  await sleep(1500);
  const totals = await load.listTotals(INSTANCES * 2);
  const mismatches: string[] = [];
  for (const { companyId, resource, totals: answered } of totals) {
    const counted = await countRows(stack.databaseUrl, companyId, resource);
    if (answered.some((total) => total !== counted))
      mismatches.push(
        `company ${companyId} ${resource}: lists said ${[...new Set(answered)].join('/')}, count(*) ${counted}`,
      );
  }
  goals.push({
    name: 'list totals equal count(*) (asked through HAProxy, every instance)',
    met: mismatches.length === 0,
    detail:
      mismatches.length === 0
        ? `${totals.length} lists x ${INSTANCES * 2} asks, all equal`
        : mismatches.join('; '),
  });

  const before = latency(records, hold.start - hold.beforeMs, hold.start);
  const during = latency(records, hold.start, hold.end);
  const stats = receivers.stats();
  goals.push({
    name: `webhook receivers slow: p99 during <= ${holdP99Ratio}x p99 before`,
    met: stats.maxHeld > 0 && during.p99 <= before.p99 * holdP99Ratio,
    detail:
      stats.maxHeld === 0
        ? 'no delivery was held: the hold did not happen'
        : `p99 ${during.p99.toFixed(1)} ms during vs ${before.p99.toFixed(1)} ms before (${(during.p99 / before.p99).toFixed(2)}x)`,
  });

  // Prometheus, asked over its HTTP API.
  const up = await waitUntil(
    'Prometheus has scraped every instance',
    async () => {
      const samples = await stack.prometheus.query('up{job="invoicing"}');
      return samples.length === INSTANCES ? samples : false;
    },
    30_000,
    500,
  ).catch(() => stack.prometheus.query('up{job="invoicing"}'));
  const rates = await stack.prometheus.query(
    'sum by (method, route) (rate(invoicing_http_requests_total{job="invoicing"}[2m]))',
  );
  const routesSeen = new Set(records.map((r) => r.route)).size;
  const activeRoutes = rates.filter((sample) => sample.value > 0);
  const upText = up.map((sample) => `${sample.labels.instance}=${sample.value}`).join(', ');
  goals.push({
    name: 'Prometheus: up of each instance, request rate by route',
    met:
      up.length === INSTANCES &&
      up.every((sample) => sample.value === 1) &&
      activeRoutes.length >= routesSeen,
    detail: `up: ${upText || 'none'}; rate by route: ${activeRoutes
      .sort((a, b) => b.value - a.value)
      .map((sample) => `${sample.labels.method} ${sample.labels.route} ${sample.value.toFixed(2)}/s`)
      .join(', ')} (${activeRoutes.length} routes, the load used ${routesSeen})`,
  });

  const rules = await checkRules();
  const loaded = await stack.prometheus.ruleGroups();
  const ruleCount = loaded.reduce((sum, group) => sum + group.rules, 0);
  goals.push({
    name: 'alert rules (deploy/prometheus/alerts.yml): promtool check rules, loaded by Prometheus',
    met: rules.ok && ruleCount > 0,
    detail: `${rules.output.split('\n').filter(Boolean).slice(-1)[0] ?? ''}; Prometheus loaded ${loaded.length} groups, ${ruleCount} rules`,
  });

  return { goals, notes };
}
