// Operator actions on webhooks (bin/invoicing webhooks ...), merged into the operations table of
// src/operations/index.ts, in the same shape and with the same argument readers as every other
// operation (src/operations/define.ts). The model and the delivery machinery are src/webhooks/;
// the model's refusals become OperationErrors here.
import { eq } from 'drizzle-orm';
import { type ActingContext, forCompany } from '../context.js';
import type { Database } from '../db/client.js';
import { companies } from '../db/schema.js';
import { attemptDelivery, loadDelivery, saveOutcome } from '../webhooks/deliveries.js';
import {
  createEndpoint,
  deliveryLog,
  listEndpoints,
  parseEventList,
  requireEndpoint,
  resendEvent,
  rotateSecret,
  setEndpointEnabled,
  WebhookRefusal,
} from '../webhooks/endpoints.js';
import { recordPing } from '../webhooks/events.js';
import { UnsafeUrl } from '../webhooks/url-safety.js';
import { wakeLocalWorkers } from '../webhooks/worker.js';
import { requireCompany } from './companies.js';
import {
  define,
  flag,
  idArg,
  limitArg,
  listArg,
  type OperationSetup,
  type RawArgs,
  textArg,
} from './define.js';
import { ArgumentError, OperationError } from './errors.js';

/** A ping is attempted by `webhooks test` itself; a worker takes it only if still pending after this. */
const PING_HOLD_MS = 60_000;

/**
 * Whose WEBHOOK_ALLOW_* decided a URL refusal. Inside the server (embedded database) only the
 * server's own settings, read when it started, count; run by the command itself they decide the
 * endpoint's creation, but the server applies its own to every delivery anyway.
 */
function whoseSetting(setup: OperationSetup): string {
  return setup.runsIn === 'server'
    ? 'this is the setting of the running server, read when it started: giving it to bin/invoicing changes nothing; set it for the server and restart it'
    : 'the server delivers with its own setting: set it for the server too';
}

/** Runs a model call, turning its refusals into the operator's errors. */
async function refusing<T>(setup: OperationSetup, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof UnsafeUrl && /WEBHOOK_ALLOW_/.test(error.message)) {
      throw new OperationError(`${error.message} (${whoseSetting(setup)})`);
    }
    if (error instanceof WebhookRefusal || error instanceof UnsafeUrl)
      throw new OperationError(error.message);
    throw error;
  }
}

/** `--events`: all, or known event types (an unknown one is a usage error). */
function eventsArg(raw: RawArgs): string[] {
  const listed = listArg(raw, 'events', 'events must be a comma-separated list, or all');
  try {
    return parseEventList(listed);
  } catch (error) {
    if (error instanceof WebhookRefusal) throw new ArgumentError(error.message);
    throw error;
  }
}

/** `--url`: an absolute URL (whether it is one the server may call is judged when run). */
function urlArg(raw: RawArgs): string {
  const url = textArg(raw, 'url');
  if (!URL.canParse(url))
    throw new ArgumentError(
      `url must be an absolute URL such as https://erp.example.co.mz/webhooks, got "${url}"`,
    );
  return url;
}

function eventIdArg(raw: RawArgs): string {
  const event = textArg(raw, 'event', 'event id');
  if (!/^evt_[A-Za-z0-9]{1,64}$/.test(event)) throw new ArgumentError('event id must look like evt_...');
  return event;
}

async function partnerApiEnabled(db: Database, companyId: number): Promise<boolean> {
  const [row] = await db
    .select({ enabled: companies.partnerApiEnabled })
    .from(companies)
    .where(eq(companies.id, companyId));
  return row?.enabled === true;
}

/**
 * Sends a ping to the endpoint now, from this process, and tells how it answered. The ping is
 * queued and committed first (held back from the workers for a minute), so it is in the log, and
 * sent by a worker later should this command die before its attempt is written.
 */
async function testEndpoint(context: ActingContext, endpointId: number, setup: OperationSetup) {
  const { db } = context;
  const settings = setup.webhooks;
  const endpoint = await refusing(setup, () => requireEndpoint(db, endpointId));
  if (!endpoint.enabled)
    throw new OperationError(`webhook endpoint ${endpointId} is disabled: enable it first`);
  if (!(await partnerApiEnabled(db, endpoint.companyId))) {
    throw new OperationError(
      `the partner API of company ${endpoint.companyId} is disabled, and with it its webhooks: enable it first`,
    );
  }
  const { eventId, deliveryId } = await db.transaction((tx) =>
    recordPing(forCompany({ ...context, db: tx }, endpoint.companyId), endpointId, PING_HOLD_MS),
  );
  const delivery = await loadDelivery(db, deliveryId);
  if (!delivery) throw new Error(`ping delivery ${deliveryId} vanished`);
  const result = await attemptDelivery(delivery, {
    policy: { allowHttp: settings.allowHttp, allowPrivate: settings.allowPrivate },
  });
  await saveOutcome(db, delivery, result, settings.retrySchedule, null);
  return {
    endpoint_id: endpointId,
    event_id: eventId,
    status: result.succeeded ? 'succeeded' : 'failed',
    status_code: result.statusCode,
    latency_ms: result.latencyMs,
    error: result.error,
  };
}

export const webhookOperations = {
  'webhooks.create': define({
    parse: (raw) => ({ companyId: idArg(raw, 'company'), url: urlArg(raw), events: eventsArg(raw) }),
    run: async (context, args, setup) => {
      await requireCompany(context.db, args.companyId);
      return refusing(setup, () => createEndpoint(context, args, setup.webhooks));
    },
  }),
  'webhooks.list': define({
    reads: true,
    parse: (raw) => ({ companyId: idArg(raw, 'company') }),
    run: async (context, args) => {
      await requireCompany(context.db, args.companyId);
      return { company_id: args.companyId, endpoints: await listEndpoints(context, args.companyId) };
    },
  }),
  'webhooks.disable': define({
    parse: (raw) => ({ id: idArg(raw, 'id', 'endpoint id') }),
    run: (context, args, setup) =>
      refusing(setup, () => setEndpointEnabled(context, args.id, false, setup.webhooks)),
  }),
  'webhooks.enable': define({
    parse: (raw) => ({ id: idArg(raw, 'id', 'endpoint id') }),
    run: async (context, args, setup) => {
      const endpoint = await refusing(setup, () =>
        setEndpointEnabled(context, args.id, true, setup.webhooks),
      );
      wakeLocalWorkers();
      return endpoint;
    },
  }),
  'webhooks.rotate-secret': define({
    parse: (raw) => ({ id: idArg(raw, 'id', 'endpoint id') }),
    run: (context, args, setup) => refusing(setup, () => rotateSecret(context, args.id)),
  }),
  'webhooks.test': define({
    ownTransactions: true,
    parse: (raw) => ({ id: idArg(raw, 'id', 'endpoint id') }),
    run: (context, args, setup) => testEndpoint(context, args.id, setup),
  }),
  'webhooks.deliveries': define({
    reads: true,
    parse: (raw) => ({
      id: idArg(raw, 'id', 'endpoint id'),
      failedOnly: flag(raw, 'failed'),
      limit: limitArg(raw, 20),
    }),
    run: async (context, args, setup) => ({
      endpoint_id: args.id,
      deliveries: await refusing(setup, () => deliveryLog(context, args.id, args)),
    }),
  }),
  'webhooks.resend': define({
    parse: (raw) => ({ event: eventIdArg(raw) }),
    run: async ({ db }, args, setup) => {
      const result = await refusing(setup, () => resendEvent(db, args.event));
      wakeLocalWorkers();
      return result;
    },
  }),
};
