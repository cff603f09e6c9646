// The goals of the lists, deep pages, the walk and writes: every such case of the harness compares
// against one of these. Reads, /ping, PGlite, compression and memory: read-goals.ts.
export const GOALS = {
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
} as const;
