// What a load run is and what it measures, whichever tool generates the load.

export interface LoadSpec {
  /** Base URL of the server, e.g. http://127.0.0.1:41234 */
  url: string;
  /** Path; "{id}" is replaced per request by a random line of idsFile. */
  path: string;
  idsFile?: string;
  authorization: string;
  /** Accept-Encoding sent with every request (compression on); absent: none (identity). */
  acceptEncoding?: string;
  connections: number;
  threads: number;
  seconds: number;
}

export interface LoadResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  /** Connection errors, timeouts and non-2xx answers: any of them makes the run invalid. */
  failures: number;
}

export interface LoadTool {
  name: string;
  run(spec: LoadSpec): Promise<LoadResult>;
}
