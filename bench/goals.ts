// The goals of the performance issue, in one place: every case of the harness compares against
// one of these.
export const GOALS = {
  /** GET /customers/{id}: API req/s as a fraction of the bare node:http + pg server's. */
  customerReadRatio: 0.7,
  /** GET /customers/{id}: API p99 at most this multiple of the bare server's. */
  customerReadP99Ratio: 2,
  /** GET /ping req/s as a fraction of the bare customer read. */
  pingRatio: 0.5,
  /** GET /customers/{id} on embedded PGlite, as a fraction of the bare server on PostgreSQL. */
  pgliteReadRatio: 0.3,
  /** Page 1 of every list (each sort, each filter), with the exact total, repeated: median ms. */
  listPage1Ms: 25,
  /** The same, the first request of the query (no remembered total): median ms. */
  listFirstMs: 100,
  /** The first request of the sync shape (`updated_since` within the last day, each sort): median ms. */
  listSyncFirstMs: 25,
  /** A page in the middle of a list (offset ~500k at 1M invoices): median ms. */
  deepPageMs: 100,
  /** Walking a list page by page: the last pages at most this multiple of the first. */
  walkLastVsFirst: 2,
  /** POST /invoices, one client at a time: p50 ms by number of lines. */
  post20LinesP50Ms: 15,
  post200LinesP50Ms: 60,
  /** Peak resident memory (VmHWM) of the API server under load, MB. */
  rssPostgresMb: 200,
  rssPgliteMb: 400,
} as const;
