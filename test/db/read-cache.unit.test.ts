// The rules of the embedded read cache (src/db/read-cache.ts) on their own: which statements
// count as writes, and when a read may be remembered and answered from memory.
import { describe, expect, it } from 'vitest';
import { createReadCache, isPlainRead, WriteTracker } from '../../src/db/read-cache.js';

describe('isPlainRead', () => {
  it('a single SELECT that locks nothing and calls nothing with effects is a read', () => {
    expect(isPlainRead('select "id", "name" from "customers" where "id" = $1')).toBe(true);
    expect(isPlainRead('  SELECT count(*) FROM invoices')).toBe(true);
  });

  it('anything else counts as a write', () => {
    for (const text of [
      'update customers set name = $1',
      'insert into customers (name) values ($1)',
      'with x as (update t set a = 1 returning *) select * from x',
      'select * from customers where id = $1 for update',
      'select * from customers for no key update skip locked',
      'select * from customers for share',
      "select nextval('customers_id_seq')",
      "select set_config('a', 'b', true)",
      'select pg_advisory_xact_lock(1)',
      "select pg_notify('c', '')",
      'select * into copy from customers',
      'select 1; delete from customers',
      'begin',
    ]) {
      expect(isPlainRead(text), text).toBe(false);
    }
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
