/**
 * Waits for a store notice, with a fallback timeout: a loop that found no work parks
 * here until the store says there may be some, instead of polling.
 */
import type { Notice, Store } from '../store/store.js';

/** A wake-up source for one or more notices. */
export class WakeUp {
  private waiters: (() => void)[] = [];
  private pending = false;
  private unsubscribers: (() => Promise<void>)[] = [];

  /**
   * Subscribes to notices; any of them wakes the waiter (after telling `onNotice` which
   * one came).
   */
  async listen(
    store: Store,
    notices: Notice[],
    onNotice?: (notice: Notice) => void,
  ): Promise<void> {
    for (const notice of notices) {
      this.unsubscribers.push(
        await store.subscribe(notice, () => {
          onNotice?.(notice);
          this.wake();
        }),
      );
    }
  }

  /** Wakes whoever waits (or the next wait, when nobody waits yet). */
  wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    if (waiters.length === 0) this.pending = true;
    for (const w of waiters) w();
  }

  /** Resolves on the next wake-up or after `timeoutMs`, whichever is first. */
  wait(timeoutMs: number): Promise<void> {
    if (this.pending) {
      this.pending = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(done, timeoutMs);
      timer.unref?.();
      const self = this;
      function done() {
        clearTimeout(timer);
        self.waiters = self.waiters.filter((w) => w !== done);
        resolve();
      }
      this.waiters.push(done);
    });
  }

  /** Unsubscribes from every notice. */
  async close(): Promise<void> {
    this.wake();
    await Promise.all(this.unsubscribers.splice(0).map((u) => u()));
  }
}
