/**
 * Pruning finished jobs by hand (`weft prune`, `Client.prune`): every job that ended
 * longer ago than a duration, in small batches — each batch its own short transaction
 * (`Store.pruneJobs`) — so a large prune never holds the store for long.
 */
import { ValidationError } from '../core/errors.js';
import type { FinalState } from '../core/retention.js';
import { PRUNED_TABLES } from '../store/pruned-tables.js';
import type { PruneCursor } from '../store/records.js';
import type { Store } from '../store/store.js';
import { nextTurn } from '../store/yield-point.js';

/** Which finished jobs {@link pruneFinishedJobs} removes. */
export interface PruneRequest {
  /** Jobs that ended at least this long ago (ms), with all their descendants. */
  olderThanMs: number;
  /** Only top jobs that ended in these states (default: every end state). */
  states?: readonly FinalState[];
  /** Only top jobs of this workflow. */
  workflow?: string;
  /** Count what would go, remove nothing. */
  dryRun?: boolean;
  /** Top jobs per transaction (default 100). */
  batch?: number;
}

/** What a prune removed (or, dry, would remove). */
export interface PruneSummary {
  dryRun: boolean;
  /** The time jobs had to have ended before (epoch ms). */
  endedBefore: number;
  /** Every job removed, top jobs and their descendants. */
  jobs: string[];
  /** Rows per table (its name without `weft_`). */
  rows: Record<string, number>;
}

/** Prunes (or counts) every finished job of `request`, batch after batch, at `now`. */
export async function pruneFinishedJobs(
  store: Store,
  request: PruneRequest,
  now: number,
): Promise<PruneSummary> {
  if (!Number.isInteger(request.olderThanMs) || request.olderThanMs < 0) {
    throw new ValidationError('olderThanMs must be whole milliseconds, 0 or more', 'prune');
  }
  const endedBefore = now - request.olderThanMs;
  const dryRun = request.dryRun === true;
  const jobs: string[] = [];
  const rows = Object.fromEntries(PRUNED_TABLES.map((t) => [t.name, 0]));
  let after: PruneCursor | undefined;
  for (;;) {
    const result = await store.pruneJobs({
      endedBefore,
      dryRun,
      ...(request.states && { states: request.states }),
      ...(request.workflow !== undefined && { workflow: request.workflow }),
      ...(request.batch !== undefined && { limit: request.batch }),
      ...(after && { after }),
    });
    jobs.push(...result.jobs);
    for (const [table, n] of Object.entries(result.rows)) rows[table] = (rows[table] ?? 0) + n;
    if (!result.next) break;
    after = result.next;
    await nextTurn();
  }
  return { dryRun, endedBefore, jobs, rows };
}
