/**
 * Options every backend accepts when it opens.
 */
import type { Clock } from '../core/clock.js';

/** How a store is opened. */
export interface StoreOptions {
  /** Time source for leases, timers and timestamps (default: the system clock). */
  clock?: Clock;
  /** PostgreSQL: connections in the pool (default 10; the URL's `?pool=N` wins). */
  poolSize?: number;
  /**
   * SQLite: how often, in ms, to look for commits by other processes so their
   * notices reach this one (default 20). Within one process notices are immediate.
   */
  pollIntervalMs?: number;
  /** SQLite: `full` (default, durable on power loss) or `normal` (durable on process crash). */
  synchronous?: 'full' | 'normal';
  /** Apply migrations on open (default true). */
  migrate?: boolean;
  /**
   * Told of a setting of the database that weakens what weft promises (Redis: `appendonly`
   * off, `appendfsync` other than `always`); default: a line on stderr.
   */
  onWarning?: (message: string) => void;
}
