// The part of autocannon's API the harness uses (the package ships no types).
declare module 'autocannon' {
  interface Request {
    path?: string;
    method?: string;
    headers?: Record<string, string>;
    setupRequest?: (request: Request) => Request;
  }
  interface Options {
    url: string;
    connections: number;
    workers?: number;
    duration: number;
    headers?: Record<string, string>;
    requests?: Request[];
  }
  interface Histogram {
    p50: number;
    p99: number;
  }
  interface Result {
    requests: { total: number; average: number };
    latency: Histogram;
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
  }
  function autocannon(options: Options): Promise<Result>;
  export default autocannon;
}
