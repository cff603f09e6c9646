// bench/lib/profile.ts: a CPU profile's self time, charged to components by the script's URL (or a
// native's name), within the measured windows only, scaled to the process's CPU per request.
import { describe, expect, it } from 'vitest';
import {
  COMPONENTS,
  type CpuProfile,
  classify,
  cpuPerRequestByComponent,
  KERNEL_SOCKET,
  OTHER,
  packageOf,
  sampledTimeByComponent,
} from '../../bench/lib/profile.js';

const frame = (functionName: string, url = '') => ({ functionName, url });

describe('classify', () => {
  it('charges a package by the innermost node_modules/ folder of its URL', () => {
    expect(packageOf('file:///app/node_modules/@fastify/compress/index.js')).toBe('@fastify/compress');
    expect(packageOf('file:///app/node_modules/fastify/node_modules/pino/pino.js')).toBe('pino');
    expect(classify(frame('handle', 'file:///app/node_modules/pg-protocol/dist/parser.js'))).toBe(
      'database driver',
    );
    expect(classify(frame('x', 'file:///app/node_modules/fastify/node_modules/pino/pino.js'))).toBe('log');
    expect(classify(frame('x', 'file:///app/node_modules/@fastify/compress/index.js'))).toBe('framework');
    expect(classify(frame('x', 'file:///app/node_modules/ioredis/built/Redis.js'))).toBe('limits');
    expect(classify(frame('x', 'file:///app/node_modules/prom-client/lib/histogram.js'))).toBe('metrics');
  });

  it("charges the project's files by their path under src/ or dist/, the rest of the project as its own", () => {
    expect(classify(frame('x', 'file:///app/dist/http/rate-limit/redis-store.js'))).toBe('limits');
    expect(classify(frame('x', 'file:///app/src/http/idempotency.ts'))).toBe('idempotency');
    expect(classify(frame('x', 'file:///app/dist/keys/key-cache.js'))).toBe('auth');
    expect(classify(frame('x', 'file:///app/dist/request-log/capture.js'))).toBe('request log');
    expect(classify(frame('x', 'file:///app/dist/http/pipeline.js'))).toBe("the project's other code");
    // A file whose name only starts like a rule's is not that rule's.
    expect(classify(frame('x', 'file:///app/dist/http/rate-limit-extra.js'))).toBe(
      "the project's other code",
    );
  });

  it('charges natives by name, Node by its node: URLs, and anything else to other', () => {
    expect(classify(frame('writev'))).toBe(KERNEL_SOCKET);
    expect(classify(frame('writeUtf8String'))).toBe(KERNEL_SOCKET);
    expect(classify(frame('(garbage collector)'))).toBe('garbage collection');
    expect(classify(frame('processTicksAndRejections', 'node:internal/process/task_queues'))).toBe(
      'Node internals',
    );
    // A JavaScript function named like a native is charged by its URL.
    expect(classify(frame('writev', 'node:internal/stream_base_commons'))).toBe('Node internals');
    expect(classify(frame('(program)'))).toBe(OTHER);
    expect(classify(frame('x', 'file:///app/node_modules/left-pad/index.js'))).toBe(OTHER);
  });
});

describe('CPU per request by component', () => {
  // Five nodes; samples 1 ms apart from t=1000 µs: pg, pg, writev, idle, fastify, GC, pg.
  const profile: CpuProfile = {
    nodes: [
      { id: 1, callFrame: frame('(root)'), children: [2, 3, 4, 5, 6] },
      { id: 2, callFrame: frame('parse', 'file:///a/node_modules/pg-protocol/dist/parser.js') },
      { id: 3, callFrame: frame('writev') },
      { id: 4, callFrame: frame('(idle)') },
      { id: 5, callFrame: frame('route', 'file:///a/node_modules/fastify/lib/route.js') },
      { id: 6, callFrame: frame('(garbage collector)') },
    ],
    startTime: 0,
    endTime: 8000,
    samples: [2, 2, 3, 4, 5, 6, 2],
    timeDeltas: [1000, 1000, 1000, 1000, 1000, 1000, 1000],
  };

  it('adds the self time of the samples inside the windows, without idle time', () => {
    const all = sampledTimeByComponent(profile, [{ startUs: 0, endUs: 10_000 }]);
    // The last sample has no next one, so no time of its own.
    expect(Object.fromEntries(all)).toEqual({
      'database driver': 2000,
      [KERNEL_SOCKET]: 1000,
      framework: 1000,
      'garbage collection': 1000,
    });
    // Samples at 1000 and 2000 (pg, pg) fall outside; 3000..4999 is writev and idle.
    const window = sampledTimeByComponent(profile, [{ startUs: 3000, endUs: 5000 }]);
    expect(Object.fromEntries(window)).toEqual({ [KERNEL_SOCKET]: 1000 });
  });

  it("splits the process's CPU per request by the profile's shares, every component present", () => {
    // 5 ms sampled, 10 ms of process CPU, 100 requests: 100 µs per request.
    const perRequest = cpuPerRequestByComponent(profile, [{ startUs: 0, endUs: 10_000 }], 10_000, 100);
    expect([...perRequest.keys()]).toEqual([...COMPONENTS]);
    expect(perRequest.get('database driver')).toBeCloseTo(40);
    expect(perRequest.get(KERNEL_SOCKET)).toBeCloseTo(20);
    expect(perRequest.get('framework')).toBeCloseTo(20);
    expect(perRequest.get('garbage collection')).toBeCloseTo(20);
    expect(perRequest.get('auth')).toBe(0);
    expect([...perRequest.values()].reduce((sum, value) => sum + value, 0)).toBeCloseTo(100);
  });
});
