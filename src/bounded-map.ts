// A Map that keeps at most `max` entries, forgetting the oldest written first: what an instance
// remembers in memory (keys, list totals, refused IPs) never grows without bound.
export class BoundedMap<V> {
  readonly #entries = new Map<string, V>();

  constructor(readonly max: number) {}

  get(key: string): V | undefined {
    return this.#entries.get(key);
  }

  /** Stores `value` as the newest entry, forgetting the oldest one when full. */
  set(key: string, value: V): void {
    this.#entries.delete(key);
    if (this.#entries.size >= this.max) this.#entries.delete(this.#entries.keys().next().value as string);
    this.#entries.set(key, value);
  }

  delete(key: string): void {
    this.#entries.delete(key);
  }

  clear(): void {
    this.#entries.clear();
  }

  get size(): number {
    return this.#entries.size;
  }
}
