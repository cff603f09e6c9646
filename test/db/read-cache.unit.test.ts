// The rules of the embedded read cache (src/db/read-cache.ts) on their own: every call through the
// tracked client counts as a write, and when a read may be remembered and answered from memory.

import type { PGlite } from '@electric-sql/pglite';
import { describe, expect, it } from 'vitest';
import { createReadCache, trackWrites, WriteTracker } from '../../src/db/read-cache.js';

describe('trackWrites', () => {
  it('counts every call that reaches the database as a possible write, whatever its text', async () => {
    const tracker = new WriteTracker();
    const calls: string[] = [];
    const fake = {
      query: async (text: string) => {
        calls.push(text);
        expect(tracker.inFlight).toBe(1);
        return { rows: [] };
      },
      exec: async (text: string) => {
        calls.push(text);
        expect(tracker.inFlight).toBe(1);
        return [];
      },
      waitReady: Promise.resolve(),
    };
    const tracked = trackWrites(fake as unknown as PGlite, tracker);
    // A plain-looking SELECT may call a function that writes: no text is trusted to be a read.
    await tracked.query('select "id", "name" from "customers" where "id" = $1');
    await tracked.query('select touch_customer($1)');
    await tracked.exec('update customers set name = $1');
    expect(calls).toHaveLength(3);
    expect(tracker.epoch).toBe(6);
    expect(tracker.inFlight).toBe(0);
    await tracked.waitReady;
    expect(tracker.epoch).toBe(6);
  });
});

function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

describe('createReadCache', () => {
  const setup = () => {
    const tracker = new WriteTracker();
    let versions = 'v1';
    let versionReads = 0;
    const cache = createReadCache(tracker, async () => {
      versionReads++;
      return versions;
    });
    let loads = 0;
    const load = async () => {
      loads++;
      return [{ loads }];
    };
    return {
      tracker,
      cache,
      load,
      loads: () => loads,
      versionReads: () => versionReads,
      setVersions: (next: string) => {
        versions = next;
      },
    };
  };

  it('remembers a read made while nothing was written, and answers it from memory', async () => {
    const { cache, load, loads } = setup();
    expect(await cache.read('a', load)).toEqual([{ loads: 1 }]);
    expect(await cache.read('a', load)).toEqual([{ loads: 1 }]);
    expect(loads()).toBe(1);
  });

  it('after a write that left data_versions as it was, keeps what it remembers (one read of the versions)', async () => {
    const { cache, load, loads, tracker, versionReads } = setup();
    await cache.read('a', load);
    await tracker.around(async () => {});
    expect(await cache.read('a', load)).toEqual([{ loads: 1 }]);
    expect(versionReads()).toBe(2);
    expect(loads()).toBe(1);
  });

  it('after a write that moved data_versions, forgets everything', async () => {
    const { cache, load, loads, tracker, setVersions } = setup();
    await cache.read('a', load);
    await tracker.around(async () => setVersions('v2'));
    expect(await cache.read('a', load)).toEqual([{ loads: 2 }]);
    expect(loads()).toBe(2);
  });

  it('while a write is in flight, every read goes to the database and nothing is remembered', async () => {
    const { cache, load, loads, tracker } = setup();
    await cache.read('a', load);
    const write = deferred<void>();
    const writing = tracker.around(() => write.promise);
    await cache.read('a', load);
    await cache.read('b', load);
    expect(loads()).toBe(3);
    write.resolve();
    await writing;
    await cache.read('b', load);
    await cache.read('b', load);
    expect(loads()).toBe(4);
  });

  it('a read during which a write started (and ended) is not remembered', async () => {
    const { cache, tracker } = setup();
    await cache.read('warm', async () => []);
    const loaded = deferred<{ n: number }[]>();
    const reading = cache.read('a', () => loaded.promise);
    await tracker.around(async () => {});
    loaded.resolve([{ n: 1 }]);
    expect(await reading).toEqual([{ n: 1 }]);
    expect(await cache.read('a', async () => [{ n: 2 }])).toEqual([{ n: 2 }]);
  });
});
