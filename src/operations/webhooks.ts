// Operator actions on webhooks (bin/invoicing webhooks ...), merged into the operations table of
// src/operations/index.ts, in the same shape and with the same argument readers as every other
// operation (src/operations/define.ts). The model and the delivery machinery are src/webhooks/;
// the model's refusals become OperationErrors here.
import { eq, sql } from 'drizzle-orm';
import { type ActingContext, forCompany } from '../context.js';
import { type Database, queryRows, runInTransaction } from '../db/client.js';
import { companies } from '../db/schema.js';
import type { Message } from '../i18n/message.js';
import { attemptDelivery, loadDelivery, saveOutcome } from '../webhooks/deliveries.js';
import {
  createEndpoint,
  deliveryLog,
  listEndpoints,
  parseEventList,
  requireEndpoint,
  resendEvent,
  resendWindow,
  rotateSecret,
  setEndpointEnabled,
  updateEndpoint,
  WebhookRefusal,
} from '../webhooks/endpoints/index.js';
import { EVENT_TYPES, type EventType, isEventType, PING_EVENT } from '../webhooks/event-types.js';
import { pingData, recordEventForEndpoint } from '../webhooks/events.js';
import { UnsafeUrl } from '../webhooks/url-safety.js';
import { wakeLocalWorkers } from '../webhooks/worker.js';
import { companyArg, idArg, type Moment, optionalId, optionalMoment, type RawArgs } from './arguments.js';
import { requireCompany } from './companies.js';
import { define, flag, limitArg, listArg, type OperationSetup, textArg } from './define.js';
import { ArgumentError, OperationError } from './errors.js';
import { sampleData } from './webhook-samples.js';

/** A ping is attempted by `webhooks test` itself; a worker takes it only if still pending after this. */
const PING_HOLD_MS = 60_000;

/**
 * Whose WEBHOOK_ALLOW_* decided a URL refusal. Inside the server (embedded database) only the
 * server's own settings, read when it started, count; run by the command itself they decide the
 * endpoint's creation, but the server applies its own to every delivery anyway.
 */
function whoseSetting(setup: OperationSetup): Message {
  return { key: setup.runsIn === 'server' ? 'refused.setting_of_server' : 'refused.setting_of_command' };
}

/** Runs a model call, turning its refusals into the operator's errors. */
async function refusing<T>(setup: OperationSetup, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof UnsafeUrl && /WEBHOOK_ALLOW_/.test(error.message)) {
      throw new OperationError({
        key: 'refused.webhook_setting',
        params: { reason: error.text, whose: whoseSetting(setup) },
      });
    }
    if (error instanceof WebhookRefusal || error instanceof UnsafeUrl) throw new OperationError(error.text);
    throw error;
  }
}

/** `--events`: all, or known event types and families (an unknown one is a usage error). */
function eventsArg(raw: RawArgs): string[] {
  const listed = listArg(raw, 'events');
  try {
    return parseEventList(listed);
  } catch (error) {
    if (error instanceof WebhookRefusal) throw new ArgumentError(error.text);
    throw error;
  }
}

/** `--url`: an absolute URL (whether it is one the server may call is judged when run). */
function urlArg(raw: RawArgs): string {
  const url = textArg(raw, 'url');
  if (!URL.canParse(url)) throw new ArgumentError({ key: 'arg.url', params: { value: url } });
  return url;
}

/** `--type` of `webhooks test`: one event type (not a family), or none for a ping. */
function sampleTypeArg(raw: RawArgs): EventType | undefined {
  const type = raw.type;
  if (type === undefined) return undefined;
  if (typeof type !== 'string' || !isEventType(type.trim())) {
    throw new ArgumentError({ key: 'arg.event_type', params: { types: EVENT_TYPES.join(', ') } });
  }
  return type.trim() as EventType;
}

/** `webhooks resend`: one event (EVENT_ID), or a window of an endpoint's (--endpoint, --since). */
type ResendArgs = { event: string } | { endpointId: number; since: Moment; until: Moment | undefined };

function resendArgs(raw: RawArgs): ResendArgs {
  const endpointId = optionalId(raw, 'endpoint', 'endpoint');
  const since = optionalMoment(raw, 'since');
  const until = optionalMoment(raw, 'until');
  if (raw.event !== undefined) {
    if (endpointId !== undefined || since !== undefined || until !== undefined) {
      throw new ArgumentError({ key: 'arg.resend_what' });
    }
    return { event: eventIdArg(raw) };
  }
  if (endpointId === undefined) throw new ArgumentError({ key: 'arg.resend_endpoint' });
  if (since === undefined) throw new ArgumentError({ key: 'arg.since_with_endpoint' });
  if (until !== undefined && !before(since, until)) throw new ArgumentError({ key: 'arg.until_after_since' });
  return { endpointId, since, until };
}

/**
 * Whether `a` comes before `b`, as far as can be told without the time zone: two dates, or two
 * instants (a date against an instant is judged when the operation runs).
 */
function before(a: Moment, b: Moment): boolean {
  if ('date' in a && 'date' in b) return a.date < b.date;
  if ('at' in a && 'at' in b) return a.at < b.at;
  return true;
}

/** A moment as an instant: a calendar date is its midnight in the service's time zone. */
async function instantOf(db: Database, moment: Moment, timeZone: string): Promise<Date> {
  if ('at' in moment) return moment.at;
  const [row] = await queryRows<{ at: Date | string }>(
    db,
    sql`select (${moment.date}::date::timestamp at time zone ${timeZone}) as at`,
  );
  if (!row) throw new Error('no answer to a date conversion');
  return row.at instanceof Date ? row.at : new Date(row.at);
}

function eventIdArg(raw: RawArgs): string {
  const event = textArg(raw, 'event', { key: 'arg.label.event_id' });
  if (!/^evt_[A-Za-z0-9]{1,64}$/.test(event)) throw new ArgumentError({ key: 'arg.event_id' });
  return event;
}

async function partnerApiEnabled(db: Database, companyId: number): Promise<boolean> {
  const [row] = await db
    .select({ enabled: companies.partnerApiEnabled })
    .from(companies)
    .where(eq(companies.id, companyId));
  return row?.enabled === true;
}

/** The cause of what `webhooks test` sends: the service's test, not a change of the company's data. */
const TEST_ACTOR = { kind: 'system', name: 'webhooks test' } as const;

/**
 * Sends a ping, or a sample of `type` built from the company's real data, to the endpoint now,
 * from this process, and tells how it answered. The event is queued and committed first (held
 * back from the workers for a minute), so it is in the log, and sent by a worker later should this
 * command die before its attempt is written. It is addressed to this endpoint only.
 */
async function testEndpoint(
  context: ActingContext,
  endpointId: number,
  type: EventType | undefined,
  setup: OperationSetup,
) {
  const { db } = context;
  const settings = setup.webhooks;
  const endpoint = await refusing(setup, () => requireEndpoint(db, endpointId));
  if (!endpoint.enabled)
    throw new OperationError({ key: 'refused.endpoint_disabled', params: { id: endpointId } });
  if (!(await partnerApiEnabled(db, endpoint.companyId))) {
    throw new OperationError({ key: 'refused.partner_api_disabled', params: { id: endpoint.companyId } });
  }
  const { eventId, deliveryId } = await runInTransaction(db, async (tx) => {
    const company = forCompany({ ...context, db: tx, actor: TEST_ACTOR }, endpoint.companyId);
    const data = type ? await sampleData(company, type) : pingData(endpointId);
    return recordEventForEndpoint(company, endpointId, type ?? PING_EVENT, data, PING_HOLD_MS);
  });
  const delivery = await loadDelivery(db, deliveryId);
  if (!delivery) throw new Error(`test delivery ${deliveryId} vanished`);
  const result = await attemptDelivery(delivery, {
    policy: { allowHttp: settings.allowHttp, allowPrivate: settings.allowPrivate },
  });
  await saveOutcome(db, delivery, result, settings.retrySchedule, null);
  return {
    endpoint_id: endpointId,
    company_id: endpoint.companyId,
    event_id: eventId,
    type: type ?? PING_EVENT,
    status: result.succeeded ? 'succeeded' : 'failed',
    status_code: result.statusCode,
    latency_ms: result.latencyMs,
    error: result.error,
  };
}

export const webhookOperations = {
  'webhooks.create': define({
    parse: (raw) => ({ companyId: companyArg(raw), url: urlArg(raw), events: eventsArg(raw) }),
    run: async (context, args, setup) => {
      await requireCompany(context.db, args.companyId);
      return refusing(setup, () => createEndpoint(context, args, setup.webhooks));
    },
  }),
  'webhooks.list': define({
    reads: true,
    parse: (raw) => ({ companyId: companyArg(raw) }),
    run: async (context, args) => {
      await requireCompany(context.db, args.companyId);
      return { company_id: args.companyId, endpoints: await listEndpoints(context, args.companyId) };
    },
  }),
  'webhooks.disable': define({
    parse: (raw) => ({ id: idArg(raw, 'id', { key: 'arg.label.endpoint_id' }) }),
    run: (context, args, setup) =>
      refusing(setup, () => setEndpointEnabled(context, args.id, false, setup.webhooks)),
  }),
  'webhooks.enable': define({
    parse: (raw) => ({ id: idArg(raw, 'id', { key: 'arg.label.endpoint_id' }) }),
    run: async (context, args, setup) => {
      const endpoint = await refusing(setup, () =>
        setEndpointEnabled(context, args.id, true, setup.webhooks),
      );
      wakeLocalWorkers();
      return endpoint;
    },
  }),
  'webhooks.rotate-secret': define({
    parse: (raw) => ({ id: idArg(raw, 'id', { key: 'arg.label.endpoint_id' }) }),
    run: (context, args, setup) => refusing(setup, () => rotateSecret(context, args.id)),
  }),
  'webhooks.update': define({
    parse: (raw) => {
      const id = idArg(raw, 'id', { key: 'arg.label.endpoint_id' });
      const events = raw.events === undefined ? undefined : eventsArg(raw);
      const url = raw.url === undefined ? undefined : urlArg(raw);
      if (events === undefined && url === undefined) {
        throw new ArgumentError({ key: 'arg.nothing_to_change' });
      }
      return { id, events, url };
    },
    run: (context, args, setup) =>
      refusing(setup, () => updateEndpoint(context, args.id, args, setup.webhooks)),
  }),
  'webhooks.test': define({
    ownTransactions: true,
    parse: (raw) => ({ id: idArg(raw, 'id', { key: 'arg.label.endpoint_id' }), type: sampleTypeArg(raw) }),
    run: (context, args, setup) => testEndpoint(context, args.id, args.type, setup),
    // The endpoint and its company, so that the audit trail filtered by company shows the test.
    target: (args, result) => ({ type: 'webhook', id: args.id, company: result?.company_id ?? null }),
  }),
  'webhooks.deliveries': define({
    reads: true,
    parse: (raw) => ({
      id: idArg(raw, 'id', { key: 'arg.label.endpoint_id' }),
      failedOnly: flag(raw, 'failed'),
      limit: limitArg(raw, 20),
    }),
    run: async (context, args, setup) => ({
      endpoint_id: args.id,
      deliveries: await refusing(setup, () => deliveryLog(context, args.id, args)),
    }),
  }),
  'webhooks.resend': define({
    parse: resendArgs,
    run: async (context, args, setup) => {
      if ('event' in args) {
        const result = await refusing(setup, () => resendEvent(context.db, args.event));
        wakeLocalWorkers();
        return result;
      }
      const since = await instantOf(context.db, args.since, context.timeZone);
      const until = args.until ? await instantOf(context.db, args.until, context.timeZone) : null;
      if (until && until <= since) throw new ArgumentError({ key: 'arg.until_after_since' });
      const result = await refusing(setup, () => resendWindow(context, args.endpointId, { since, until }));
      wakeLocalWorkers();
      return result;
    },
    target: (args, result) =>
      'event' in args
        ? { type: 'webhook', id: null, company: null }
        : {
            type: 'webhook',
            id: args.endpointId,
            company: result && 'company_id' in result ? result.company_id : null,
          },
  }),
};
