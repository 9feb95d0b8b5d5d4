/**
 * A code-first job's part of its view: its works in the order they were scheduled, what
 * it waits for, and its instance structure; when asked, its steps in the order they ran
 * (read off its history by models/step-timeline.ts, as the dashboard's timeline is). It
 * has no collation key.
 */
import type { Instance } from '../durable/instance.js';
import { readInstance } from '../durable/stored-instance.js';
import type { JobRecord, Json } from '../store/records.js';
import type { StoreTx } from '../store/store.js';
import type { ActivityView } from './activity-view.js';
import type { ModelView, ViewContext } from './model-runtime.js';
import { UnservedNotes } from './served-work.js';
import { durableTimeline } from './step-timeline.js';
import { historyForTimeline } from './timeline-history.js';
import { isoTime, until } from './view-time.js';

/** Builds a code-first job's part of its view. */
export async function durableView(
  tx: StoreTx,
  job: JobRecord,
  { running, now, steps }: ViewContext,
): Promise<ModelView> {
  const instance = await readInstance(tx, job);
  let timeline: ReturnType<typeof durableTimeline> | undefined;
  if (steps) {
    const history = await historyForTimeline(tx, job.id);
    timeline = durableTimeline(job, instance, history.lines, history.truncated);
  }
  const unserved = running
    ? await UnservedNotes.read(tx, now, waitsSince(job, instance))
    : undefined;
  return {
    collation: null,
    compositional: null,
    activities: instance ? works(instance) : [],
    waitingFor: !unserved
      ? []
      : instance
        ? instanceWaits(instance, now, unserved)
        : [
            `waits for a worker that runs workflow ${job.workflow}${unserved.workflow(job.workflow, job.createdAt, now)}`,
          ],
    instance: instance as unknown as Json,
    ...(timeline ? { steps: timeline.steps } : {}),
    ...(timeline?.truncated ? { stepsTruncated: true } : {}),
    node: null,
  };
}

/** Since when each wait that may get a note began: for a worker with the code, for a task. */
function waitsSince(job: JobRecord, instance: Instance | null): (number | null | undefined)[] {
  if (!instance) return [job.createdAt];
  return [
    instance.decision_ongoing ? instance.decision_triggered_at : null,
    ...instance.statuses
      .filter((s) => s.type === 'task' && s.sync && s.status === 'scheduled' && !s.started)
      .map((s) => s.scheduled_at),
  ];
}

/** A code-first instance's works, in the order they were scheduled. */
function works(instance: Instance): ActivityView[] {
  return instance.statuses.map((s) => ({
    id: s.name,
    kind: s.type,
    state: s.status === 'scheduled' && s.started ? 'running' : s.status,
    position: null,
    digit: null,
    work: s.uuid,
    ...(!s.sync && (s.type === 'task' || s.type === 'workflow') ? { dispatched: true } : {}),
    ...(s.status === 'completed' && s.type !== 'wait' ? { output: s.output ?? null } : {}),
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
    startedAt: isoTime(s.started_at ?? null),
    finishedAt: isoTime(s.finished_at ?? null),
  }));
}

/** What a running code-first instance waits for, in words. */
function instanceWaits(instance: Instance, now: number, unserved: UnservedNotes): string[] {
  if (instance.decision_mode === 'paused') return ['paused: waits for `weft resume`'];
  if (instance.decision_mode === 'reverting') return ['reverting: its finished tasks are undone'];
  if (instance.decision_mode === 'modified') {
    return ['stopped: its code changed under it (fix the code, then `weft resume`)'];
  }
  const words: string[] = [];
  for (const s of instance.statuses) {
    if (s.status !== 'scheduled' || !s.sync) continue;
    if (s.type === 'task') {
      words.push(
        `waits for task ${s.name}${s.started ? '' : unserved.task(s.name, s.scheduled_at, now)}`,
      );
    } else if (s.type === 'workflow') words.push(`waits for workflow ${s.name}`);
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
  const triggered = instance.decision_ongoing ? instance.decision_triggered_at : null;
  if (instance.start_at !== undefined && triggered === instance.start_at && triggered > now) {
    // A delayed start: its first decision is not due yet.
    words.push(`waits until ${until(triggered, now)} to start`);
  } else if (instance.decision_ongoing || (words.length === 0 && instance.buffer.length > 0)) {
    const name = instance.workflow_name;
    const since = instance.decision_ongoing ? instance.decision_triggered_at : null;
    words.push(
      `waits for a worker that runs workflow ${name}${unserved.workflow(name, since, now)}`,
    );
  }
  return words;
}
