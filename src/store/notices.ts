/**
 * An in-process hub for store notices: listeners keyed by `stream:<name>` or `job:<id>`.
 * Backends publish to it after a commit (and, when they learn another process
 * committed, wake everyone). Listeners are plain callbacks; one that throws does not stop
 * the others.
 */
import type { Notice } from './store.js';

/** The hub key of a notice: `stream:<name>` or `job:<id>`. */
export function noticeKey(notice: Notice): string {
  return notice.kind === 'stream' ? `stream:${notice.name}` : `job:${notice.id}`;
}

/** Listeners by notice key, for one store instance. */
export class NoticeHub {
  private readonly listeners = new Map<string, Set<() => void>>();
  private count = 0;

  /**
   * Adds a listener; returns a function that removes it (idempotent). `onChange` hears
   * the listener count after every change, so a backend can start or stop polling.
   */
  add(key: string, listener: () => void, onChange?: (count: number) => void): () => void {
    let set = this.listeners.get(key);
    if (!set) {
      set = new Set();
      this.listeners.set(key, set);
    }
    // Wrap so the same function subscribed twice is two subscriptions.
    const entry = () => listener();
    set.add(entry);
    this.count++;
    onChange?.(this.count);
    let removed = false;
    return () => {
      if (removed) return;
      removed = true;
      const current = this.listeners.get(key);
      if (current?.delete(entry)) {
        this.count--;
        if (current.size === 0) this.listeners.delete(key);
        onChange?.(this.count);
      }
    };
  }

  /** How many listeners are registered. */
  get size(): number {
    return this.count;
  }

  /** Calls the listeners of each key once. */
  publish(keys: Iterable<string>): void {
    for (const key of keys) {
      const set = this.listeners.get(key);
      if (set) for (const listener of [...set]) callSafely(listener);
    }
  }

  /** Calls every listener (another process changed something; a spurious wake-up is allowed). */
  wakeAll(): void {
    for (const set of [...this.listeners.values()]) {
      for (const listener of [...set]) callSafely(listener);
    }
  }

  /** Removes every listener. */
  clear(): void {
    this.listeners.clear();
    this.count = 0;
  }
}

function callSafely(listener: () => void): void {
  try {
    listener();
  } catch {
    // A listener's failure is its own; the commit that woke it already happened.
  }
}
