/**
 * The worker's retention sweep: every so often it reads the workflows' retention policies
 * from the store, and prunes the finished jobs each policy (or, for the states and
 * workflows no policy covers, the worker's default) lets go — in batches of a few top
 * jobs, each batch its own short transaction (`Store.pruneJobs`), back to the event loop
 * between batches. Any number of workers may sweep: they remove each job once.
 */
import {
  FINAL_STATES,
  type FinalState,
  type RetentionPolicy,
  shortestRetention,
} from '../core/retention.js';
import type { PruneCursor, PruneOptions, RetentionRecord } from '../store/records.js';
import type { Store } from '../store/store.js';
import { nextTurn } from '../store/yield-point.js';

/** Top jobs per prune transaction (each with its descendants). */
export const RETENTION_BATCH = 50;

/** The longest wait between sweeps. */
const MAX_SWEEP_EVERY_MS = 60_000;
/** The shortest wait between sweeps. */
const MIN_SWEEP_EVERY_MS = 250;

/** One prune over the store: a cut-off, end states, and which workflows. */
export type RetentionPass = Omit<PruneOptions, 'limit' | 'after' | 'dryRun'>;

/**
 * The prunes that apply `defaults` and the workflows' `policies` at `now`: per workflow
 * the states its policy gives a duration, then every other workflow's by the default
 * (each state with the workflows whose policy names it left out). A `null` (forever)
 * makes no pass and keeps the default off that state. States with one duration share a
 * pass.
 */
export function retentionPasses(
  policies: readonly RetentionRecord[],
  defaults: RetentionPolicy,
  now: number,
): RetentionPass[] {
  const passes: RetentionPass[] = [];
  const byDuration = (policy: RetentionPolicy, states: readonly FinalState[]) => {
    const groups = new Map<number, FinalState[]>();
    for (const state of states) {
      const ms = policy[state];
      if (typeof ms === 'number') groups.set(ms, [...(groups.get(ms) ?? []), state]);
    }
    return groups;
  };
  for (const record of policies) {
    for (const [ms, states] of byDuration(record.policy, FINAL_STATES)) {
      passes.push({ workflow: record.workflow, states, endedBefore: now - ms });
    }
  }
  for (const [ms, states] of byDuration(defaults, FINAL_STATES)) {
    // Each state's own exceptions: the workflows whose policy says something about it.
    const groups = new Map<string, FinalState[]>();
    for (const state of states) {
      const except = policies.filter((r) => r.policy[state] !== undefined).map((r) => r.workflow);
      const key = JSON.stringify(except);
      groups.set(key, [...(groups.get(key) ?? []), state]);
    }
    for (const [key, grouped] of groups) {
      const except = JSON.parse(key) as string[];
      passes.push({
        states: grouped,
        endedBefore: now - ms,
        ...(except.length > 0 && { exceptWorkflows: except }),
      });
    }
  }
  return passes;
}

/** How long to wait before the next sweep: a quarter of the shortest retention, 250 ms to 60 s. */
export function sweepEveryMs(
  policies: readonly RetentionRecord[],
  defaults: RetentionPolicy,
): number {
  const shortest = [defaults, ...policies.map((r) => r.policy)]
    .map(shortestRetention)
    .filter((ms): ms is number => ms !== undefined);
  if (shortest.length === 0) return MAX_SWEEP_EVERY_MS;
  return Math.min(MAX_SWEEP_EVERY_MS, Math.max(MIN_SWEEP_EVERY_MS, Math.min(...shortest) / 4));
}

/** What one sweep did. */
export interface SweepOutcome {
  /** Jobs removed (descendants included). */
  removed: number;
  /** When to sweep again, in ms from now. */
  nextInMs: number;
}

/**
 * One sweep at `now`: every pass, batch after batch, until it has nothing more or
 * `stopping()` says so.
 */
export async function sweepRetention(
  store: Store,
  defaults: RetentionPolicy,
  now: number,
  stopping: () => boolean,
  batch = RETENTION_BATCH,
): Promise<SweepOutcome> {
  const policies = await store.listRetentions();
  let removed = 0;
  for (const pass of retentionPasses(policies, defaults, now)) {
    let after: PruneCursor | undefined;
    while (!stopping()) {
      const result = await store.pruneJobs({ ...pass, limit: batch, ...(after && { after }) });
      removed += result.jobs.length;
      if (!result.next) break;
      after = result.next;
      await nextTurn();
    }
  }
  return { removed, nextInMs: sweepEveryMs(policies, defaults) };
}
