/**
 * Time, injected. Everything in weft that needs "now" or a delay asks a {@link Clock},
 * so tests can use {@link SimulatedClock} and advance time by hand.
 */

/** A source of time and delays. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  /** Resolves after `ms` milliseconds of this clock's time, or rejects when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new Error('aborted');
}

/** The real wall clock. */
export class SystemClock implements Clock {
  now(): number {
    return Date.now();
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(abortReason(signal));
      const onAbort = () => {
        clearTimeout(timer);
        reject(abortReason(signal as AbortSignal));
      };
      const timer = setTimeout(
        () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        Math.max(0, ms),
      );
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}

interface Sleeper {
  at: number;
  seq: number;
  resolve: () => void;
}

/** A clock that only moves when told to; sleepers wake in time order. */
export class SimulatedClock implements Clock {
  private current: number;
  private sleepers: Sleeper[] = [];
  private seq = 0;

  constructor(start = Date.UTC(2026, 0, 1)) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(abortReason(signal));
      const sleeper: Sleeper = { at: this.current + Math.max(0, ms), seq: this.seq++, resolve };
      this.sleepers.push(sleeper);
      signal?.addEventListener(
        'abort',
        () => {
          this.sleepers = this.sleepers.filter((s) => s !== sleeper);
          reject(abortReason(signal));
        },
        { once: true },
      );
    });
  }

  /** Moves time forward by `ms`, waking due sleepers in order. */
  async advance(ms: number): Promise<void> {
    await this.set(this.current + ms);
  }

  /** Moves time to `at` (never backwards), waking due sleepers in order. */
  async set(at: number): Promise<void> {
    const target = Math.max(at, this.current);
    for (;;) {
      const due = this.sleepers
        .filter((s) => s.at <= target)
        .sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!due) break;
      this.sleepers = this.sleepers.filter((s) => s !== due);
      this.current = Math.max(this.current, due.at);
      due.resolve();
      await Promise.resolve();
    }
    this.current = target;
  }

  /** How many sleepers are waiting. */
  get pending(): number {
    return this.sleepers.length;
  }
}
