/**
 * Moves a job's stored state to where its instance now is, one legal flow move at a
 * time (RUNNING→SUSPENDING→SUSPENDED to pause; SUSPENDED→RUNNING→… to go on), so every
 * move goes through core/states.
 */
import type { FlowState } from '../core/states.js';
import type { JobPatch } from '../store/records.js';
import type { StoreTx } from '../store/store.js';

const PATHS: Partial<Record<FlowState, Partial<Record<FlowState, FlowState[]>>>> = {
  RUNNING: { SUSPENDED: ['SUSPENDING', 'SUSPENDED'] },
  SUSPENDED: {
    SUCCESS: ['RUNNING', 'SUCCESS'],
    FAILURE: ['RUNNING', 'FAILURE'],
  },
};

/** Moves the job from `from` to `to` (no-op when equal); the patch goes with the last move. */
export async function moveJobState(
  tx: StoreTx,
  job: string,
  from: FlowState,
  to: FlowState,
  patch: JobPatch = {},
): Promise<void> {
  if (from === to) {
    if (Object.keys(patch).length) await tx.updateJob(job, patch);
    return;
  }
  const path = PATHS[from]?.[to] ?? [to];
  let at = from;
  for (const [i, next] of path.entries()) {
    await tx.setJobState(job, at, next, i === path.length - 1 ? patch : {});
    at = next;
  }
}
