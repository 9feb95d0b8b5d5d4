/**
 * A code-first job's part of its view: its works in the order they were scheduled, what
 * it waits for, and its instance structure. It has no collation key.
 */
import type { Instance } from '../durable/instance.js';
import { readInstance } from '../durable/stored-instance.js';
import type { JobRecord, Json } from '../store/records.js';
import type { StoreTx } from '../store/store.js';
import type { ActivityView } from './activity-view.js';
import type { ModelView, ViewContext } from './model-runtime.js';
import { until } from './view-time.js';

/** Builds a code-first job's part of its view. */
export async function durableView(
  tx: StoreTx,
  job: JobRecord,
  { running, now }: ViewContext,
): Promise<ModelView> {
  const instance = await readInstance(tx, job);
  return {
    collation: null,
    compositional: null,
    activities: instance ? works(instance) : [],
    waitingFor: !running
      ? []
      : instance
        ? instanceWaits(instance, now)
        : [`waits for a worker that runs workflow ${job.workflow}`],
    instance: instance as unknown as Json,
    node: null,
  };
}

/** A code-first instance's works, in the order they were scheduled. */
function works(instance: Instance): ActivityView[] {
  return instance.statuses.map((s) => ({
    id: s.name,
    kind: s.type,
    state: s.status,
    position: null,
    digit: null,
    work: s.uuid,
    // A reverted task reads its revert's state (REVERTING, REVERTED, REVERT_FAILURE).
    status:
      s.revert_state ??
      (s.status === 'completed'
        ? 'SUCCESS'
        : s.status === 'failed'
          ? 'FAILURE'
          : s.started
            ? 'RUNNING'
            : 'PENDING'),
    attempts: s.type === 'task' && (s.started || s.status !== 'scheduled') ? (s.attempt ?? 1) : 0,
    error: s.error ?? null,
    startedAt: null,
    finishedAt: null,
  }));
}

/** What a running code-first instance waits for, in words. */
function instanceWaits(instance: Instance, now: number): string[] {
  if (instance.decision_mode === 'paused') return ['paused: waits for `weft resume`'];
  if (instance.decision_mode === 'reverting') return ['reverting: its finished tasks are undone'];
  if (instance.decision_mode === 'modified') {
    return ['stopped: its code changed under it (fix the code, then `weft resume`)'];
  }
  const words: string[] = [];
  for (const s of instance.statuses) {
    if (s.status !== 'scheduled' || !s.sync) continue;
    if (s.type === 'task') words.push(`waits for task ${s.name}`);
    else if (s.type === 'workflow') words.push(`waits for workflow ${s.name}`);
    else if (s.type === 'wait') {
      const wait = instance.waits.find((w) => w.uuid === s.uuid);
      if (!wait) continue;
      if (wait.event !== undefined) {
        words.push(
          `waits for event ${wait.event}${wait.timestamp === null ? '' : `, at most until ${until(wait.timestamp, now)}`}`,
        );
      } else if (wait.timestamp !== null) words.push(`waits until ${until(wait.timestamp, now)}`);
    }
  }
  if (instance.decision_ongoing || (words.length === 0 && instance.buffer.length > 0)) {
    words.push(`waits for a worker that runs workflow ${instance.workflow_name}`);
  }
  return words;
}
