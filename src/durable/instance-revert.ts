/**
 * Code-first compensation: the rules of core/revert-order applied to an instance. A
 * workflow defined with `{ onFailure: 'revert' }` (the instance's `on_failure`) that
 * fails does not end at once: it moves to `reverting` (no decision runs any more; its
 * job stays RUNNING) and reverts, one at a time and newest first, every task that
 * finished (completed or failed) and names a revert task. A task's completion number is
 * its `completion_index` — the execution index of the branch its result triggered, which
 * grows with every result the instance takes in — so the order is the order results were
 * taken in, as the graph engine's completion sequence is. Each revert is a task message
 * (`scheduleRevert` effect); its result comes back as a `revertResult` action. The
 * instance ends `reverted` (job REVERTED) when all succeeded, `failed` (FAILURE, the
 * error naming the task) when one failed.
 */

import {
  isRevertFailure,
  nextRevert,
  type RevertCandidate,
  revertedFlowState,
  revertFailedError,
  revertInput,
  revertMove,
} from '../core/revert-order.js';
import type { TaskState } from '../core/states.js';
import type { ErrorRecord } from '../store/records.js';
import type { RevertResultAction } from './actions.js';
import type { Effect } from './effects.js';
import type { EngineResult } from './engine-actions.js';
import { type Instance, type Status, statusIndexOf } from './instance.js';
import { copyInstance, lifeOf, moveLife } from './instance-life.js';

function taskState(status: Status): TaskState {
  if (status.revert_state) return status.revert_state;
  return status.status === 'completed' ? 'SUCCESS' : 'FAILURE';
}

function candidates(instance: Instance): RevertCandidate<number>[] {
  const out: RevertCandidate<number>[] = [];
  instance.statuses.forEach((s, i) => {
    if (s.type !== 'task' || !s.revert || s.status === 'scheduled') return;
    if (s.completion_index === undefined) return;
    out.push({ ref: i, state: taskState(s), seq: s.completion_index });
  });
  return out;
}

/**
 * Starts the next revert of a reverting instance (a copy the caller owns), or ends it
 * when none is left: `reverted`, or `failed` when a revert failed.
 */
function revertNext(instance: Instance, effects: Effect[]): void {
  const next = nextRevert(candidates(instance));
  if (next) {
    const status = instance.statuses[next.ref] as Status;
    const state = revertMove(next.state, 'start', `${status.name} ${status.uuid}`);
    instance.statuses[next.ref] = { ...status, revert_state: state as 'REVERTING' };
    effects.push({
      type: 'scheduleRevert',
      uuid: status.uuid,
      name: status.revert as string,
      input: revertInput(status),
    });
    return;
  }
  const error = instance.error ?? { name: 'Error', message: 'failed' };
  if (revertedFlowState(error) === 'FAILURE') {
    moveLife(instance, 'failed');
    effects.push({ type: 'failed', error });
  } else {
    moveLife(instance, 'reverted');
    effects.push({ type: 'reverted', error });
  }
}

/**
 * Called on a failing instance (a copy the caller owns) whose `failure` would end it:
 * when it reverts on failure, moves it to `reverting` and starts its first revert (or
 * ends it REVERTED at once when nothing needs one). False when it does not revert.
 */
export function startReverting(
  instance: Instance,
  failure: ErrorRecord,
  effects: Effect[],
): boolean {
  if (instance.on_failure !== 'revert') return false;
  moveLife(instance, 'reverting');
  instance.error = failure;
  revertNext(instance, effects);
  return true;
}

/**
 * Takes in a revert's result: its task REVERTED or REVERT_FAILURE (naming the task in
 * the instance's error), then the next revert or the end. A result for a task whose
 * revert is not running changes nothing.
 */
export function receiveRevertResult(
  instance: Instance,
  action: RevertResultAction,
  now: number,
): EngineResult {
  if (lifeOf(instance) !== 'reverting') return { instance, effects: [] };
  const at = statusIndexOf(instance.statuses, action.uuid);
  const status = instance.statuses[at];
  if (status?.revert_state !== 'REVERTING') return { instance, effects: [] };
  const next = copyInstance(instance, now);
  const effects: Effect[] = [];
  const state = revertMove('REVERTING', action.error ? 'failure' : 'success', status.uuid);
  next.statuses[at] = { ...status, revert_state: state as 'REVERTED' | 'REVERT_FAILURE' };
  if (action.error && !isRevertFailure(next.error)) {
    next.error = revertFailedError(status.name, action.error, next.error) as ErrorRecord;
  }
  revertNext(next, effects);
  return { instance: next, effects };
}
