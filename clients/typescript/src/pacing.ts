// Pacing: the client waits before a request that a limit it knows of would refuse, instead of
// sending it and meeting a 429 (a refused request still counts against the limits).
//
// What the client knows comes from the answers' IETF RateLimit headers:
//   RateLimit-Policy: "key-minute";q=60;w=60, "key-writes-minute";q=10;w=60, ...
//     every limit that counted the request, with its quota and window in seconds;
//   RateLimit: "key-writes-minute";r=0;t=42
//     the tightest of them: requests left and seconds until its window resets (every other limit
//     of the policy has at least as many left).
// Rules, shared by every call of one PartnerApi (the same rules in the PHP and Python clients):
// - a limit applies to the kind of request (read: GET, write: POST/PUT) whose answers listed it,
//   and a limit that counts reads counts writes too;
// - a request reserves one unit of every limit it applies to before it is sent; an answer sets
//   the reported limit's remaining to its `r` minus the requests still in flight (on the same
//   window, the lower of that and what was known: answers may arrive out of order);
// - a request waits while a limit it applies to has nothing left, until that limit's reset (then
//   its quota is back), or, when the reset is unknown, until an answer in flight says more;
// - until the first answer to a kind of request has arrived, one request of that kind at a time
//   (nothing is known yet); a server that sends no RateLimit headers is then never waited for;
// - a wait longer than the client's longest wait is not made: the request goes and the server's
//   429 (with its Retry-After) ends the call, as for the per-day limit.

export type RequestKind = 'read' | 'write';

/** What the client knows of one limit (`rateLimits()`). */
export interface RateLimitState {
  /** The limit's name in the headers, e.g. `key-writes-minute`. */
  name: string;
  /** Requests allowed per window (`q`), when a RateLimit-Policy header gave it. */
  quota: number | null;
  /** Window length in seconds (`w`). */
  windowSeconds: number | null;
  /** Requests this client may still send in the current window (its own reservations deducted). */
  remaining: number | null;
  /** Milliseconds until the window resets, when known. */
  resetInMs: number | null;
  /** Which requests count against it. */
  appliesTo: RequestKind[];
}

/** Passed to `onPace` before each wait. */
export interface PaceInfo {
  kind: RequestKind;
  /** The limit waited for. */
  limit: string;
  delayMs: number;
}

interface Limit {
  quota: number | null;
  windowSeconds: number | null;
  remaining: number | null;
  /** Monotonic time (ms) of the window's reset, when known. */
  resetAt: number | null;
  kinds: Set<RequestKind>;
}

/** A reservation made by `acquire`, handed back to `release`. */
export interface Ticket {
  kind: RequestKind;
  released: boolean;
}

export interface HeaderSource {
  get(name: string): string | null;
}

/** Answers that land in the same window report resets at most this far apart (`t` is whole seconds). */
const SAME_WINDOW_MS = 1500;

export class Pacer {
  private readonly limits = new Map<string, Limit>();
  private readonly inFlight: Record<RequestKind, number> = { read: 0, write: 0 };
  private readonly answered: Record<RequestKind, boolean> = { read: false, write: false };
  private changed = signal();

  constructor(
    private readonly maxWaitMs: number,
    private readonly onPace: ((info: PaceInfo) => void) | undefined,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Waits until a request of this kind may go, then reserves it. */
  async acquire(kind: RequestKind, abort?: AbortSignal): Promise<Ticket> {
    for (;;) {
      abort?.throwIfAborted();
      const now = this.now();
      this.expire(now);
      const wait = this.blocker(kind, now);
      if (wait === null || (wait.until !== null && wait.until - now > this.maxWaitMs)) {
        this.reserve(kind);
        return { kind, released: false };
      }
      if (wait.until === null) {
        await waitFor(this.changed.promise, null, abort);
      } else {
        const delayMs = Math.ceil(wait.until - now);
        this.onPace?.({ kind, limit: wait.limit, delayMs });
        // One millisecond more: a timer may fire up to a millisecond early by performance.now(),
        // which would find the limit not yet reset and wait (and tell onPace) a second time.
        await waitFor(this.changed.promise, delayMs + 1, abort);
      }
    }
  }

  /** Ends a reservation: with the answer's headers, or null when no answer came. */
  release(ticket: Ticket, headers: HeaderSource | null): void {
    if (ticket.released) return;
    ticket.released = true;
    this.inFlight[ticket.kind]--;
    if (headers) {
      this.answered[ticket.kind] = true;
      this.learn(ticket.kind, headers, this.now());
    }
    const { resolve } = this.changed;
    this.changed = signal();
    resolve();
  }

  snapshot(): RateLimitState[] {
    const now = this.now();
    this.expire(now);
    return [...this.limits].map(([name, limit]) => ({
      name,
      quota: limit.quota,
      windowSeconds: limit.windowSeconds,
      remaining: limit.remaining,
      resetInMs: limit.resetAt === null ? null : Math.max(0, Math.ceil(limit.resetAt - now)),
      appliesTo: (['read', 'write'] as const).filter((kind) => applies(limit, kind)),
    }));
  }

  private expire(now: number): void {
    for (const limit of this.limits.values()) {
      if (limit.resetAt !== null && now >= limit.resetAt) {
        limit.remaining = limit.quota;
        limit.resetAt = null;
      }
    }
  }

  /** Why a request of this kind must wait now (the latest reset among the exhausted limits), or null. */
  private blocker(kind: RequestKind, now: number): { limit: string; until: number | null } | null {
    if (!this.answered[kind] && this.inFlight[kind] > 0) return { limit: '(first answer)', until: null };
    let found: { limit: string; until: number | null } | null = null;
    for (const [name, limit] of this.limits) {
      if (!applies(limit, kind) || limit.remaining === null || limit.remaining > 0) continue;
      if (limit.resetAt !== null && limit.resetAt > now) {
        if (found === null || found.until === null || limit.resetAt > found.until)
          found = { limit: name, until: limit.resetAt };
      } else if (found === null && this.inFlightFor(limit) > 0) {
        found = { limit: name, until: null };
      }
    }
    return found;
  }

  private reserve(kind: RequestKind): void {
    this.inFlight[kind]++;
    for (const limit of this.limits.values()) {
      if (applies(limit, kind) && limit.remaining !== null) limit.remaining--;
    }
  }

  private inFlightFor(limit: Limit): number {
    return (
      (applies(limit, 'read') ? this.inFlight.read : 0) + (applies(limit, 'write') ? this.inFlight.write : 0)
    );
  }

  private limit(name: string): Limit {
    let limit = this.limits.get(name);
    if (!limit) {
      limit = { quota: null, windowSeconds: null, remaining: null, resetAt: null, kinds: new Set() };
      this.limits.set(name, limit);
    }
    return limit;
  }

  private learn(kind: RequestKind, headers: HeaderSource, now: number): void {
    const policy = parseList(headers.get('ratelimit-policy'));
    for (const item of policy) {
      const limit = this.limit(item.name);
      limit.kinds.add(kind);
      if (item.params.q !== undefined) limit.quota = item.params.q;
      if (item.params.w !== undefined) limit.windowSeconds = item.params.w;
    }
    for (const item of parseList(headers.get('ratelimit'))) {
      const { r, t } = item.params;
      if (r === undefined) continue;
      const reported = this.limit(item.name);
      reported.kinds.add(kind);
      const lower = r - this.inFlightFor(reported);
      const resetAt = t === undefined ? null : now + t * 1000;
      const sameWindow =
        resetAt !== null &&
        reported.resetAt !== null &&
        Math.abs(resetAt - reported.resetAt) <= SAME_WINDOW_MS;
      reported.remaining =
        sameWindow && reported.remaining !== null ? Math.min(reported.remaining, lower) : lower;
      if (resetAt !== null) reported.resetAt = resetAt;
      // The tightest limit has the fewest left: every other limit that counted this request has at least r.
      for (const other of policy) {
        if (other.name === item.name) continue;
        const limit = this.limit(other.name);
        const bound = r - this.inFlightFor(limit);
        limit.remaining = limit.remaining === null ? bound : Math.max(limit.remaining, bound);
      }
    }
  }
}

function applies(limit: Limit, kind: RequestKind): boolean {
  return limit.kinds.has(kind) || (kind === 'write' && limit.kinds.has('read'));
}

interface ListItem {
  name: string;
  params: Record<string, number>;
}

/**
 * A structured-field list as these headers use it: `"name";a=1;b=2, "other";a=3`. Unknown or
 * malformed parameters are left out; a malformed item is skipped.
 */
export function parseList(value: string | null): ListItem[] {
  if (!value) return [];
  const items: ListItem[] = [];
  for (const member of value.match(/(?:"[^"]*"|[^,])+/g) ?? []) {
    const [head, ...params] = member.split(';').map((part) => part.trim());
    const name = head?.match(/^"([^"]*)"$|^([A-Za-z*][A-Za-z0-9_.:/*-]*)$/);
    if (!name) continue;
    const item: ListItem = { name: name[1] ?? name[2] ?? '', params: {} };
    for (const param of params) {
      const match = /^([a-z*][a-z0-9_.*-]*)=(-?[0-9]+)$/.exec(param);
      if (match?.[1] && match[2]) item.params[match[1]] = Number(match[2]);
    }
    items.push(item);
  }
  return items;
}

/** A promise and its resolve function: resolved, and replaced, whenever the state changes. */
function signal(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

/** Until `changed` resolves or `ms` pass (never, when null); rejects with the abort's reason. */
function waitFor(changed: Promise<void>, ms: number | null, abort: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const done = () => {
      if (timer !== undefined) clearTimeout(timer);
      abort?.removeEventListener('abort', onAbort);
      resolve();
    };
    const onAbort = () => {
      if (timer !== undefined) clearTimeout(timer);
      reject(abort?.reason);
    };
    if (ms !== null) timer = setTimeout(done, ms);
    abort?.addEventListener('abort', onAbort, { once: true });
    changed.then(done);
  });
}
