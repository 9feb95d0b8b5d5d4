/**
 * What a work does after its instance ended. A dispatched task (`dispatch`: the code did
 * not wait for it), or one of a parallel `execute` another's failure cut short, may start
 * and finish after the instance completed, failed or was cancelled. The instance keeps
 * the end it had — no branch runs, no decision, the job's state and output stay — but the
 * work's status still records what happened to it: started, then completed with its
 * output or failed with its error, and when; so `weft status` and the dashboard show it.
 */
import type { Action } from './actions.js';
import { type Instance, statusIndexOf } from './instance.js';
import { copyInstance } from './instance-life.js';

/** The actions a late work reports. */
export type LateAction = Extract<Action, { type: 'onStart' | 'onSuccess' | 'onFailure' }>;

/** True for an action {@link recordLateAction} may record. */
export function isLateAction(action: Action): action is LateAction {
  return action.type === 'onStart' || action.type === 'onSuccess' || action.type === 'onFailure';
}

/**
 * The ended `instance` with `action` recorded on its work's status, or null when there is
 * nothing to record: the instance still runs, the work is no task or child workflow, its
 * result is already in, or (for `onStart`) it already started.
 */
export function recordLateAction(
  instance: Instance,
  action: LateAction,
  now: number,
): Instance | null {
  if (instance.state === 'running') return null;
  const at = statusIndexOf(instance.statuses, action.uuid);
  const status = instance.statuses[at];
  if (status?.status !== 'scheduled') return null;
  if (status.type !== 'task' && status.type !== 'workflow') return null;
  if (action.type === 'onStart' && status.started) return null;
  const next = copyInstance(instance, now);
  if (action.type === 'onStart') {
    next.statuses[at] = { ...status, started: true, started_at: now };
  } else if (action.type === 'onSuccess') {
    next.statuses[at] = { ...status, status: 'completed', output: action.output, finished_at: now };
  } else {
    next.statuses[at] = { ...status, status: 'failed', error: action.error, finished_at: now };
  }
  return next;
}
