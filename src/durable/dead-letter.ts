/**
 * A code-first instance whose message (an action, a control request, a decision, or one
 * of its works' task messages) was dead-lettered fails at once, as graph jobs do: its
 * error is the dead letter's, its parent is told, and the life it had is kept in the
 * error (`lifeBefore`) so requeueing the message brings it back to that life.
 */
import type { ErrorRecord } from '../store/records.js';
import type { Effect } from './effects.js';
import type { Instance } from './instance.js';
import { copyInstance, type InstanceLife, lifeOf } from './instance-life.js';

/** The instance failed by a dead letter, and the effects that tell its parent. */
export function failByDeadLetter(
  instance: Instance,
  error: ErrorRecord,
  now: number,
): { instance: Instance; effects: Effect[] } {
  const next = copyInstance(instance, now);
  const record: ErrorRecord = { ...error, lifeBefore: lifeOf(instance) };
  // Any life of a running instance (running, paused, modified) may fail this way.
  next.state = 'failed';
  next.decision_mode = 'terminated';
  next.error = record;
  return { instance: next, effects: [{ type: 'failed', error: record }] };
}

/** The instance back in the life it had before {@link failByDeadLetter}, with no error. */
export function reopenAfterDeadLetter(instance: Instance, now: number): Instance {
  const next = copyInstance(instance, now);
  const life = instance.error?.lifeBefore as InstanceLife | undefined;
  next.state = 'running';
  next.decision_mode = life === 'paused' || life === 'modified' ? life : 'run';
  next.error = null;
  return next;
}
