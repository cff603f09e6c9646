// autocannon, the fallback when wrk is not installed (it runs inside the harness process).
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import type { LoadResult, LoadSpec, LoadTool } from './types.js';

async function run(spec: LoadSpec): Promise<LoadResult> {
  const ids = spec.idsFile ? readFileSync(spec.idsFile, 'utf8').trim().split('\n') : [];
  const result = await autocannon({
    url: spec.url,
    connections: spec.connections,
    duration: spec.seconds,
    headers: {
      authorization: spec.authorization,
      ...(spec.acceptEncoding ? { 'accept-encoding': spec.acceptEncoding } : {}),
    },
    requests: [
      {
        method: 'GET',
        setupRequest: (request) => ({
          ...request,
          path: spec.path.replace('{id}', ids[Math.floor(Math.random() * ids.length)] ?? ''),
        }),
      },
    ],
  });
  return {
    requestsPerSecond: result.requests.total / result.duration,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    requests: result.requests.total,
    failures: result.errors + result.timeouts + result.non2xx,
  };
}

export const autocannonTool: LoadTool = { name: 'autocannon', run };
