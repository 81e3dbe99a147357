/**
 * A small map whose entries expire after `ttlMs`: what the platform looks up on every request
 * (token → user, solution → current version) without a query each time. The store's change
 * notifications clear the entries a change touches; `ttlMs` bounds how long a change whose
 * notification was lost takes to be seen.
 */
export class TtlCache<K, V> {
  private readonly entries = new Map<K, { value: V; until: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  async get(key: K, load: () => Promise<V>): Promise<V> {
    const now = Date.now();
    const hit = this.entries.get(key);
    if (hit && hit.until > now) return hit.value;
    const value = await load();
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(key, { value, until: now + this.ttlMs });
    return value;
  }

  delete(key: K): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }
}
