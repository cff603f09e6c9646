// The goals of the second round of the performance issue for reads, the wire and memory: the API
// against the bare server's named prepared statement, with Redis and compression on (the list, deep
// page, walk and write goals: goals.ts).
export const READ_GOALS = {
  /** GET /customers/{id}: API req/s as a fraction of the bare server's prepared-statement read. */
  customerReadRatio: 0.85,
  /** GET /customers/{id}: API p99 at most this multiple of the bare server's. */
  customerReadP99Ratio: 1.5,
  /** GET /ping req/s as a fraction of the bare prepared-statement customer read. */
  pingRatio: 0.85,
  /** GET /customers/{id} on embedded PGlite, as a fraction of the bare server's plain query. */
  pgliteReadRatio: 0.3,
  /** A page of 100 invoices: plain bytes at least this multiple of the compressed bytes. */
  compressedPageRatio: 5,
  /** Peak resident memory (VmHWM) of the API server under load, MB. */
  rssPostgresMb: 200,
  rssPgliteMb: 300,
} as const;

/** What the load generator asks for on every API request: compression on, as partners' clients. */
export const CLIENT_ACCEPT_ENCODING = 'gzip, deflate, br';
