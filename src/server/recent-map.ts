/**
 * A map that keeps only its most recently set entries: the server remembers finished
 * and stale hand-outs for a while, so a late request about one gets a precise 409
 * rather than a 404, without growing without bound.
 */

/** A bounded map; setting beyond `limit` entries forgets the oldest. */
export class RecentMap<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(private readonly limit: number) {}

  /** Sets (or refreshes) an entry. */
  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    while (this.entries.size > this.limit) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      this.entries.delete(oldest.value);
    }
  }

  /** Reads an entry. */
  get(key: K): V | undefined {
    return this.entries.get(key);
  }

  /** Forgets an entry. */
  delete(key: K): void {
    this.entries.delete(key);
  }
}
