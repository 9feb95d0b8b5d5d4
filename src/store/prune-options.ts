/**
 * A `pruneJobs` call's options, checked and filled in the same way for every backend:
 * final states only (default all), a limit from 1 to `MAX_PRUNE_LIMIT`, a time that is a
 * number.
 */
import { ValidationError } from '../core/errors.js';
import { FINAL_STATES, type FinalState } from '../core/retention.js';
import { DEFAULT_PRUNE_LIMIT, MAX_PRUNE_LIMIT } from './pruned-tables.js';
import type { PruneCursor, PruneOptions } from './records.js';

/** What a backend runs a prune with. */
export interface CheckedPrune {
  endedBefore: number;
  states: FinalState[];
  workflow: string | null;
  exceptWorkflows: string[];
  limit: number;
  after: PruneCursor;
  dryRun: boolean;
}

/** `options` checked; a `ValidationError` naming the field that is wrong. */
export function checkPruneOptions(options: PruneOptions): CheckedPrune {
  if (!Number.isFinite(options.endedBefore)) {
    throw new ValidationError('endedBefore must be a time in epoch ms', 'pruneJobs');
  }
  const states = [...new Set(options.states ?? FINAL_STATES)];
  for (const state of states) {
    if (!(FINAL_STATES as readonly string[]).includes(state)) {
      throw new ValidationError(
        `state ${JSON.stringify(state)} is not an end state (${FINAL_STATES.join(', ')}): only finished jobs are pruned`,
        'pruneJobs',
      );
    }
  }
  const limit = options.limit ?? DEFAULT_PRUNE_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PRUNE_LIMIT) {
    throw new ValidationError(
      `limit must be a whole number from 1 to ${MAX_PRUNE_LIMIT}`,
      'pruneJobs',
    );
  }
  return {
    endedBefore: Math.floor(options.endedBefore),
    states: states as FinalState[],
    workflow: options.workflow ?? null,
    exceptWorkflows: [...(options.exceptWorkflows ?? [])],
    limit,
    after: options.after ?? { finishedAt: Number.MIN_SAFE_INTEGER, id: '' },
    dryRun: options.dryRun === true,
  };
}

/** The families among `members` (top job → each member's state and end) that may go. */
export function prunableFamilies(
  members: readonly { root: string; id: string; state: string; finishedAt: number | null }[],
  endedBefore: number,
): Map<string, string[]> {
  const families = new Map<string, string[]>();
  const kept = new Set<string>();
  for (const m of members) {
    const ended =
      (FINAL_STATES as readonly string[]).includes(m.state) &&
      m.finishedAt !== null &&
      m.finishedAt < endedBefore;
    if (!ended) kept.add(m.root);
    const family = families.get(m.root) ?? [];
    family.push(m.id);
    families.set(m.root, family);
  }
  for (const root of kept) families.delete(root);
  return families;
}
