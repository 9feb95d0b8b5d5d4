/**
 * Cross-process notices for SQLite, which cannot notify another process: while anyone
 * in this process is subscribed, read `PRAGMA data_version` every `intervalMs`; it
 * changes when another connection commits, and then every subscriber is woken (the
 * contract allows spurious wake-ups). The interval is `unref`ed, so it never keeps the
 * process alive, and stops when the last subscriber leaves or the store closes.
 */
import type { Db } from './connection.js';
import type { Statement } from './ops/context.js';

/** Polls one connection's data_version. */
export class DataVersionPoller {
  private timer: ReturnType<typeof setInterval> | undefined;
  private last: number | undefined;
  private readonly read: Statement;

  constructor(
    db: Db,
    private readonly intervalMs: number,
    /** Whether the connection is free to read now (no transaction of ours is open). */
    private readonly idle: () => boolean,
    private readonly onChange: () => void,
  ) {
    this.read = db.prepare('PRAGMA data_version').pluck();
  }

  /** Starts or stops polling to match the subscriber count. */
  update(subscribers: number): void {
    if (subscribers > 0 && !this.timer) {
      this.last = this.version();
      this.timer = setInterval(() => this.tick(), Math.max(1, this.intervalMs));
      this.timer.unref();
    } else if (subscribers === 0) {
      this.stop();
    }
  }

  /** Stops polling. */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  private tick(): void {
    if (!this.idle()) return;
    const now = this.version();
    if (now !== undefined && now !== this.last) {
      this.last = now;
      this.onChange();
    }
  }

  private version(): number | undefined {
    try {
      return this.read.get() as number;
    } catch {
      return undefined;
    }
  }
}
