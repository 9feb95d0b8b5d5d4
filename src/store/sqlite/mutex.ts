/**
 * A small FIFO async mutex: one SQLite connection runs one transaction at a time, and a
 * transaction's callback may await (JSONata, say) while it holds the connection.
 */

/** Gives the lock back. */
export type Release = () => void;

/** A FIFO lock for async code. */
export class AsyncMutex {
  private held = false;
  private readonly waiting: (() => void)[] = [];

  /** True while someone holds the lock. */
  get locked(): boolean {
    return this.held;
  }

  /** Takes the lock at once when it is free; undefined otherwise. */
  tryAcquire(): Release | undefined {
    if (this.held) return undefined;
    this.held = true;
    return this.releaser();
  }

  /** Waits for the lock. */
  acquire(): Promise<Release> {
    const now = this.tryAcquire();
    if (now) return Promise.resolve(now);
    return new Promise((resolve) => {
      this.waiting.push(() => resolve(this.releaser()));
    });
  }

  private releaser(): Release {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const next = this.waiting.shift();
      if (next) next();
      else this.held = false;
    };
  }
}
