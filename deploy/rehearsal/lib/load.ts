// The steady mixed load: a few workers per API key, several keys per company, several companies,
// each worker looping over single reads, list pages, list walks and writes through the official
// TypeScript client (its retries and idempotency keys as they ship), with a short pause between
// operations. Every write carries a marker of its own (a name or an invoice reference) and a known
// Idempotency-Key, so that afterwards the database can say whether it exists exactly once.
import { setTimeout as sleep } from 'node:timers/promises';
import { PartnerApi, PartnerApiError } from '../../../clients/typescript/src/index.js';
import { now } from './progress.js';
import type { Recorder } from './recorder.js';

export interface KeyOfCompany {
  companyId: number;
  key: string;
}

export type WriteKind = 'customer' | 'product' | 'invoice';

export interface TrackedWrite {
  kind: WriteKind;
  companyId: number;
  /** The record's name (customers, products) or reference (invoices). */
  marker: string;
  idempotencyKey: string;
  /** Retries the client made for this write (onRetry calls). */
  retries: number;
  outcome: 'pending' | 'created' | 'failed';
  /** The last error of a failed call. */
  error?: string;
  /** Sends the same bytes with the same key again (what a partner's program does after a crash). */
  resend(): Promise<unknown>;
  /** When the first attempt was sent and when the answer came (ms on progress.ts's clock). */
  sentAt?: number;
  ackedAt?: number;
  /** The created record's id, once acknowledged. */
  id?: number;
}

interface CompanyIds {
  customers: number[];
  ownCustomers: number[];
  products: number[];
  productPrices: Map<number, string>;
  invoices: number[];
}

export interface LoadOptions {
  baseUrl: string;
  keys: KeyOfCompany[];
  workersPerKey: number;
  /** Pause between two operations of a worker (jittered +-50%). */
  pauseMs: number;
  runId: string;
  recorder: Recorder;
}

export interface LoadStats {
  calls: number;
  callsFailed: number;
  /** Failed calls by the kind of their last error. */
  callFailures: Map<string, number>;
}

const KEEP_IDS = 400;

function pick<T>(values: readonly T[]): T | undefined {
  return values.length === 0 ? undefined : values[Math.floor(Math.random() * values.length)];
}

function remember(list: number[], id: number): void {
  list.push(id);
  if (list.length > KEEP_IDS) list.splice(0, list.length - KEEP_IDS);
}

function describeError(error: unknown): string {
  if (error instanceof PartnerApiError) return `${error.status} ${error.code ?? 'no envelope'}`;
  return (error as Error).message ?? String(error);
}

export class Load {
  readonly writes: TrackedWrite[] = [];
  readonly stats: LoadStats = { calls: 0, callsFailed: 0, callFailures: new Map() };
  private stopped = false;
  private workers: Promise<void>[] = [];
  private writeCounter = 0;
  private readonly retriesByKey = new Map<string, number>();
  private readonly ids = new Map<number, CompanyIds>();
  private readonly clients = new Map<string, PartnerApi>();

  constructor(private readonly options: LoadOptions) {}

  /** The note both rehearsals end with: the client's calls, and those that gave up, by kind. */
  summary(): string {
    const { calls, callsFailed, callFailures } = this.stats;
    const kinds = [...callFailures.entries()].map(([kind, n]) => `${n}x ${kind}`).join(', ');
    return `client calls: ${calls}, ${callsFailed} failed after the client's retries${kinds ? ` (${kinds})` : ''}`;
  }

  private client(key: string): PartnerApi {
    let api = this.clients.get(key);
    if (!api) {
      api = new PartnerApi({
        apiKey: key,
        baseUrl: `${this.options.baseUrl}/api/v1/partner`,
        fetch: this.options.recorder.fetch(),
        timeoutMs: 15_000,
        onRetry: (info) => {
          if (info.idempotencyKey)
            this.retriesByKey.set(info.idempotencyKey, (this.retriesByKey.get(info.idempotencyKey) ?? 0) + 1);
        },
      });
      this.clients.set(key, api);
    }
    return api;
  }

  /** What each company has before the load starts (its demo data): ids to read and to invoice. */
  async prepare(): Promise<void> {
    for (const { companyId, key } of this.options.keys) {
      if (this.ids.has(companyId)) continue;
      const api = this.client(key);
      const [customers, products, invoices] = await Promise.all([
        api.customers.list({ per_page: 100 }),
        api.products.list({ per_page: 100 }),
        api.invoices.list({ per_page: 100 }),
      ]);
      this.ids.set(companyId, {
        customers: customers.data.map((customer) => customer.id),
        ownCustomers: [],
        products: products.data.map((product) => product.id),
        productPrices: new Map(products.data.map((product) => [product.id, product.price ?? '10.00'])),
        invoices: invoices.data.map((invoice) => invoice.id),
      });
    }
  }

  start(): void {
    for (const { companyId, key } of this.options.keys)
      for (let index = 0; index < this.options.workersPerKey; index++)
        this.workers.push(this.worker(companyId, key));
  }

  /** Stops the workers after their current operation (bounded by the client's own timeouts). */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.workers);
  }

  private async worker(companyId: number, key: string): Promise<void> {
    const api = this.client(key);
    // Workers start spread over one pause, not all at once.
    await sleep(Math.random() * this.options.pauseMs);
    while (!this.stopped) {
      this.stats.calls++;
      try {
        await this.operation(api, companyId);
      } catch (error) {
        this.stats.callsFailed++;
        const kind = describeError(error);
        this.stats.callFailures.set(kind, (this.stats.callFailures.get(kind) ?? 0) + 1);
      }
      await sleep(this.options.pauseMs * (0.5 + Math.random()));
    }
  }

  private async operation(api: PartnerApi, companyId: number): Promise<void> {
    const ids = this.ids.get(companyId)!;
    const roll = Math.random() * 100;
    if (roll < 8) {
      await api.ping();
    } else if (roll < 22) {
      const id = pick(ids.customers);
      if (id !== undefined) await api.customers.get(id);
      else await api.ping();
    } else if (roll < 32) {
      const id = pick(ids.products);
      if (id !== undefined) await api.products.get(id);
      else await api.ping();
    } else if (roll < 42) {
      const id = pick(ids.invoices);
      if (id !== undefined) await api.invoices.get(id);
      else await api.ping();
    } else if (roll < 52) {
      await api.customers.list({ page: 1 + Math.floor(Math.random() * 3), per_page: 25 });
    } else if (roll < 58) {
      await api.invoices.list({ status: 'draft', per_page: 25 });
    } else if (roll < 64) {
      // A list walk: the first pages of every product, oldest first, as a sync job reads them.
      let seen = 0;
      for await (const _ of api.products.listAll({ sort: 'created_at', order: 'asc' })) {
        if (++seen >= 300) break;
      }
    } else if (roll < 78) {
      await this.createCustomer(api, companyId, ids);
    } else if (roll < 84) {
      await this.createProduct(api, companyId, ids);
    } else if (roll < 90) {
      const id = pick(ids.ownCustomers);
      if (id === undefined) await this.createCustomer(api, companyId, ids);
      else
        await api.customers.update(id, {
          phone: `+25884${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`,
        });
    } else {
      await this.createInvoice(api, companyId, ids);
    }
  }

  private marker(kind: WriteKind): string {
    this.writeCounter++;
    return `${this.options.runId}-${kind}-${this.writeCounter}`;
  }

  /** Runs a tracked write: its key and marker are recorded before the first attempt. */
  private async tracked<T>(
    kind: WriteKind,
    companyId: number,
    send: (marker: string, idempotencyKey: string) => Promise<T>,
  ): Promise<T> {
    const marker = this.marker(kind);
    const idempotencyKey = `${marker}-key`;
    const write: TrackedWrite = {
      kind,
      companyId,
      marker,
      idempotencyKey,
      retries: 0,
      outcome: 'pending',
      resend: () => send(marker, idempotencyKey),
    };
    this.writes.push(write);
    write.sentAt = now();
    try {
      const result = await send(marker, idempotencyKey);
      write.outcome = 'created';
      write.ackedAt = now();
      const id = (result as { id?: unknown }).id;
      if (typeof id === 'number') write.id = id;
      return result;
    } catch (error) {
      write.outcome = 'failed';
      write.error = describeError(error);
      throw error;
    } finally {
      write.retries = this.retriesByKey.get(idempotencyKey) ?? 0;
    }
  }

  private async createCustomer(api: PartnerApi, companyId: number, ids: CompanyIds): Promise<void> {
    const customer = await this.tracked('customer', companyId, (name, idempotencyKey) =>
      api.customers.create({ name, type: 'company' }, { idempotencyKey }),
    );
    remember(ids.customers, customer.id);
    remember(ids.ownCustomers, customer.id);
  }

  private async createProduct(api: PartnerApi, companyId: number, ids: CompanyIds): Promise<void> {
    const price = `${100 + Math.floor(Math.random() * 900)}.50`;
    const product = await this.tracked('product', companyId, (name, idempotencyKey) =>
      api.products.create({ name, type: 'SERVICES', inventory: 'NON_INVENTORY', price }, { idempotencyKey }),
    );
    remember(ids.products, product.id);
    ids.productPrices.set(product.id, price);
  }

  private async createInvoice(api: PartnerApi, companyId: number, ids: CompanyIds): Promise<void> {
    const customerId = pick(ids.customers);
    const productId = pick(ids.products);
    if (customerId === undefined || productId === undefined) return this.createCustomer(api, companyId, ids);
    const price = ids.productPrices.get(productId) ?? '10.00';
    const invoiceDate = new Date().toISOString().slice(0, 10);
    const invoice = await this.tracked('invoice', companyId, (reference, idempotencyKey) =>
      api.invoices.create(
        {
          customer_id: customerId,
          invoice_date: invoiceDate,
          reference,
          items: [{ product_id: productId, quantity: 1 + Math.floor(Math.random() * 3), price }],
        },
        { idempotencyKey },
      ),
    );
    remember(ids.invoices, invoice.id);
  }

  /** The list total each company sees, asked `times` times (so every instance answers at least once). */
  async listTotals(times: number): Promise<{ companyId: number; resource: string; totals: number[] }[]> {
    const results: { companyId: number; resource: string; totals: number[] }[] = [];
    const seen = new Set<number>();
    for (const { companyId, key } of this.options.keys) {
      if (seen.has(companyId)) continue;
      seen.add(companyId);
      const api = this.client(key);
      for (const resource of ['customers', 'products', 'invoices'] as const) {
        const totals: number[] = [];
        for (let index = 0; index < times; index++)
          totals.push((await api[resource].list({ per_page: 1 })).pagination.total);
        results.push({ companyId, resource, totals });
      }
    }
    return results;
  }
}
