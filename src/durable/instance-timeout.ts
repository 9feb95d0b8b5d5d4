/**
 * A code-first instance whose job's deadline passed (`engine/job-deadline.ts`) fails at
 * once, as a graph job does: every work still scheduled (task, child workflow, wait) is
 * recorded failed with the timeout error — the works it cut off — its waits' timers are
 * cancelled, no decision runs any more (the buffer is dropped), no revert runs whatever
 * `onFailure` says, and its parent is told it failed.
 */
import type { ErrorRecord } from '../store/records.js';
import type { Effect } from './effects.js';
import type { Instance } from './instance.js';
import { copyInstance } from './instance-life.js';

/** The names of the works of `instance` still scheduled: what a timeout cuts off. */
export function scheduledWorks(instance: Instance): string[] {
  return instance.statuses.filter((s) => s.status === 'scheduled').map((s) => s.name);
}

/** The instance failed by its deadline with `error`, and the effects that go with it. */
export function failByTimeout(
  instance: Instance,
  error: ErrorRecord,
  now: number,
): { instance: Instance; effects: Effect[] } {
  const next = copyInstance(instance, now);
  next.statuses = next.statuses.map((s) =>
    s.status === 'scheduled' ? { ...s, status: 'failed', error } : s,
  );
  const effects: Effect[] = next.waits.map((w) => ({
    type: 'cancelWait',
    uuid: w.uuid,
    hash: w.hash,
    timed: w.timestamp !== null,
  }));
  next.waits = [];
  next.buffer = [];
  next.decision_ongoing = false;
  next.decision_uuid = null;
  // Any life of a running instance (running, paused, modified, reverting) ends this way.
  next.state = 'failed';
  next.decision_mode = 'terminated';
  next.error = error;
  effects.push({ type: 'failed', error });
  return { instance: next, effects };
}
