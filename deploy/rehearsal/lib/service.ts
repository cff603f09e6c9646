// The service as both rehearsals start it, one way: the database migrated, the companies, keys
// and webhook endpoints made with bin/invoicing (their receivers answering at once), the instances
// started behind the API's HAProxy (deploy/haproxy/haproxy.cfg) and supervised as systemd's
// Restart=on-failure would (an instance that exits unasked is recorded as a crash and started
// again after a second); and the moves made on it (restarting an instance).
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { invoicing } from './checks.js';
import { seedCompanies } from './companies.js';
import { type HaproxyServer, startHaproxy } from './haproxy.js';
import { createInstance, type Instance, type InstanceSettings } from './instances.js';
import type { KeyOfCompany } from './load.js';
import { now, say, seconds } from './progress.js';
import { type Receivers, startReceivers } from './receivers.js';

/** Instances that exited without being asked to, as systemd's Restart=on-failure would see them. */
export const crashes: { name: string; at: number; exit: string }[] = [];
const MAX_CRASH_RESTARTS = 5;
const restarting = new Map<Instance, Promise<void>>();

/** Set on Ctrl-C or SIGTERM: the exits that follow are asked for, nothing is started again. */
let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => {
    interrupted = true;
  });

/** A crashed instance is recorded and started again after a second (deploy/invoicing.service). */
function supervise(instance: Instance, exit: string): void {
  if (interrupted) return;
  crashes.push({ name: instance.name, at: now(), exit });
  say(`!!! ${instance.name} exited unasked (${exit}); see its log. Starting it again, as systemd would`);
  if (crashes.length > MAX_CRASH_RESTARTS) {
    say(`!!! more than ${MAX_CRASH_RESTARTS} crashes: no more restarts`);
    return;
  }
  const again = sleep(1000)
    .then(() => (interrupted ? { ms: 0 } : instance.start()))
    .then(
      ({ ms }) => say(`${instance.name} ready again after its crash (${seconds(ms)})`),
      (error: Error) => say(`!!! ${instance.name} did not start again: ${error.message}`),
    )
    .finally(() => restarting.delete(instance));
  restarting.set(instance, again);
}

export type InstancePlace = Omit<InstanceSettings, 'name' | 'logFile' | 'onCrash'>;

export interface Seeded {
  companyIds: number[];
  keys: KeyOfCompany[];
  receivers: Receivers;
}

/**
 * Migrates, makes `companies` companies with `keysPerCompany` live keys each (bin/invoicing demo)
 * and `receiversPerCompany` webhook endpoints each, every event type, on receivers of their own.
 */
export async function seedService(
  cliEnv: NodeJS.ProcessEnv,
  counts: { companies: number; keysPerCompany: number; receiversPerCompany: number },
): Promise<Seeded> {
  await invoicing(cliEnv, ['migrate']);
  const { companyIds, keys } = await seedCompanies(cliEnv, counts.companies, counts.keysPerCompany);
  const receivers = await startReceivers(counts.companies * counts.receiversPerCompany);
  let index = 0;
  for (const companyId of companyIds)
    for (let n = 0; n < counts.receiversPerCompany; n++)
      await invoicing(cliEnv, [
        ...['webhooks', 'create', '--company', String(companyId)],
        ...['--url', receivers.urls[index++]!, '--events', 'all'],
      ]);
  say(
    `${counts.companies} companies (bin/invoicing demo), ${counts.keysPerCompany} live keys and ${counts.receiversPerCompany} webhook endpoints each`,
  );
  return { companyIds, keys, receivers };
}

/** `count` instances (invoicing1..), started, then HAProxy in front of them, every one UP. */
export async function startInstances(options: {
  count: number;
  place: (index: number) => InstancePlace;
  proxyPort: number;
  runDir: string;
  logDir: string;
}): Promise<{ instances: Instance[]; haproxy: HaproxyServer }> {
  const instances: Instance[] = Array.from({ length: options.count }, (_, index) =>
    createInstance({
      name: `invoicing${index + 1}`,
      ...options.place(index),
      logFile: path.join(options.logDir, `invoicing${index + 1}.log`),
      onCrash: (exit) => supervise(instances[index]!, exit),
    }),
  );
  await Promise.all(instances.map((instance) => instance.start()));
  say(`${options.count} instances ready: ${instances.map((i) => `${i.port} (ops ${i.opsPort})`).join(', ')}`);
  const haproxy = await startHaproxy({
    port: options.proxyPort,
    instances,
    runDir: options.runDir,
    logFile: path.join(options.logDir, 'haproxy.log'),
  });
  for (const instance of instances) await haproxy.waitFor(instance.name, 'UP', 30_000);
  say(`HAProxy on port ${options.proxyPort}: every instance UP`);
  return { instances, haproxy };
}

/** Stops (SIGTERM, drained) or kills an instance and starts it again: until HAProxy sees it UP. */
export async function restartInstance(
  haproxy: HaproxyServer,
  instance: Instance,
  signal: 'SIGTERM' | 'SIGKILL',
  drainMs: number,
): Promise<string> {
  await restarting.get(instance);
  let stopped: string;
  if (signal === 'SIGTERM') {
    const { ms, killed } = await instance.stop();
    stopped = killed ? `did not exit within ${seconds(drainMs + 30_000)}: SIGKILL` : `exit ${seconds(ms)}`;
  } else {
    await instance.kill();
    stopped = 'killed';
  }
  const { ms } = await instance.start();
  const upFrom = performance.now();
  await haproxy.waitFor(instance.name, 'UP', 30_000);
  return `${stopped}, ready ${seconds(ms)}, UP in HAProxy +${seconds(performance.now() - upFrom)}`;
}
