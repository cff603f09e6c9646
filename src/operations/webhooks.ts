// Operator actions on webhooks (bin/invoicing webhooks ...), merged into the operations table of
// src/operations/index.ts. The model and the delivery machinery are src/webhooks/; this file
// checks the raw arguments (command-line strings or the admin socket's JSON) and turns the
// model's refusals into OperationErrors.
import { eq } from 'drizzle-orm';
import { loadConfig, type WebhookConfig } from '../config.js';
import type { Database } from '../db/client.js';
import { companies } from '../db/schema.js';
import { attemptDelivery, loadDelivery, saveOutcome } from '../webhooks/deliveries.js';
import {
  createEndpoint,
  deliveryLog,
  listEndpoints,
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
import { OperationError } from './errors.js';
import type { OperationContext } from './index.js';

type RawArgs = Record<string, unknown>;

/** A ping is attempted by `webhooks test` itself; a worker takes it only if still pending after this. */
const PING_HOLD_MS = 60_000;
const MAX_LOG_ROWS = 1000;

function webhookSettings(context: OperationContext): WebhookConfig {
  return context.webhooks ?? loadConfig(process.env).webhooks;
}

function idOf(raw: RawArgs, key: string, label: string): number {
  const value = raw[key];
  const text = typeof value === 'number' ? String(value) : value;
  if (typeof text !== 'string' || !/^[1-9][0-9]{0,9}$/.test(text.trim()) || Number(text) > 2_147_483_647) {
    throw new OperationError(
      value === undefined || value === '' ? `${label} is required` : `${label} must be a positive integer id`,
    );
  }
  return Number(text);
}

function textOf(raw: RawArgs, key: string, label = key): string {
  const value = raw[key];
  if (typeof value !== 'string' || value.trim() === '') throw new OperationError(`${label} is required`);
  return value.trim();
}

/** Runs a model call, turning its refusals into the operator's errors. */
async function refusing<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof WebhookRefusal || error instanceof UnsafeUrl)
      throw new OperationError(error.message);
    throw error;
  }
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
async function testEndpoint(context: OperationContext, endpointId: number) {
  const { db, timeZone } = context;
  const settings = webhookSettings(context);
  const endpoint = await refusing(() => requireEndpoint(db, endpointId));
  if (!endpoint.enabled)
    throw new OperationError(`webhook endpoint ${endpointId} is disabled: enable it first`);
  if (!(await partnerApiEnabled(db, endpoint.companyId))) {
    throw new OperationError(
      `the partner API of company ${endpoint.companyId} is disabled, and with it its webhooks: enable it first`,
    );
  }
  const { eventId, deliveryId } = await db.transaction((tx) =>
    recordPing({ db: tx, companyId: endpoint.companyId, timeZone }, endpointId, PING_HOLD_MS),
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

interface Definition<A, R> {
  parse(raw: RawArgs): A;
  run(context: OperationContext, args: A): Promise<R>;
  /** Only reads (nothing to audit, no transaction needed). */
  reads?: true;
  /** Network calls between its own transactions: audited after, never inside one transaction. */
  ownTransactions?: true;
}

const define = <A, R>(definition: Definition<A, R>) => definition;

export const webhookOperations = {
  'webhooks.create': define({
    parse: (raw) => {
      const events = raw.events;
      if (events !== undefined && typeof events !== 'string' && !Array.isArray(events)) {
        throw new OperationError('events must be a comma-separated list, or all');
      }
      return {
        companyId: idOf(raw, 'company', 'company'),
        url: textOf(raw, 'url'),
        events: events as string | string[] | undefined,
      };
    },
    run: async (context, args) => {
      await requireCompany(context.db, args.companyId);
      return refusing(() => createEndpoint(context.db, args, webhookSettings(context)));
    },
  }),
  'webhooks.list': define({
    reads: true,
    parse: (raw) => ({ companyId: idOf(raw, 'company', 'company') }),
    run: async ({ db }, args) => {
      await requireCompany(db, args.companyId);
      return { company_id: args.companyId, endpoints: await listEndpoints(db, args.companyId) };
    },
  }),
  'webhooks.disable': define({
    parse: (raw) => ({ id: idOf(raw, 'id', 'endpoint id') }),
    run: (context, args) =>
      refusing(() => setEndpointEnabled(context.db, args.id, false, webhookSettings(context))),
  }),
  'webhooks.enable': define({
    parse: (raw) => ({ id: idOf(raw, 'id', 'endpoint id') }),
    run: async (context, args) => {
      const endpoint = await refusing(() =>
        setEndpointEnabled(context.db, args.id, true, webhookSettings(context)),
      );
      wakeLocalWorkers();
      return endpoint;
    },
  }),
  'webhooks.rotate-secret': define({
    parse: (raw) => ({ id: idOf(raw, 'id', 'endpoint id') }),
    run: ({ db }, args) => refusing(() => rotateSecret(db, args.id)),
  }),
  'webhooks.test': define({
    ownTransactions: true,
    parse: (raw) => ({ id: idOf(raw, 'id', 'endpoint id') }),
    run: (context, args) => testEndpoint(context, args.id),
  }),
  'webhooks.deliveries': define({
    reads: true,
    parse: (raw) => {
      const limit = raw.limit === undefined ? 20 : Number(raw.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LOG_ROWS) {
        throw new OperationError(`limit must be an integer from 1 to ${MAX_LOG_ROWS}`);
      }
      if (raw.failed !== undefined && typeof raw.failed !== 'boolean') {
        throw new OperationError('failed is a flag without a value');
      }
      return { id: idOf(raw, 'id', 'endpoint id'), failedOnly: raw.failed === true, limit };
    },
    run: async ({ db }, args) => ({
      endpoint_id: args.id,
      deliveries: await refusing(() => deliveryLog(db, args.id, args)),
    }),
  }),
  'webhooks.resend': define({
    parse: (raw) => {
      const event = textOf(raw, 'event', 'event id');
      if (!/^evt_[A-Za-z0-9]{1,64}$/.test(event)) throw new OperationError('event id must look like evt_...');
      return { event };
    },
    run: async ({ db }, args) => {
      const result = await refusing(() => resendEvent(db, args.event));
      wakeLocalWorkers();
      return result;
    },
  }),
};
