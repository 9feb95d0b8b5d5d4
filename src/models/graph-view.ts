/**
 * A graph job's part of its view: the collation key (and the compositional key with its
 * children's keys), one row per activity in the graph's order, and what it waits for.
 */

import { collationTable, formatCollationKey } from '../core/collation.js';
import { type CompositionalNode, composeKey } from '../core/compositional-key.js';
import { revertLabel } from '../core/revert-order.js';
import { COLLATION_FIELD } from '../engine/collation-field.js';
import type { LoadedWorkflow } from '../engine/loaded-workflow.js';
import { ENGINE_STREAM, type TaskMessage, taskStream } from '../engine/messages.js';
import type { ActivityRecord, JobRecord, StreamMessage } from '../store/records.js';
import type { StoreTx } from '../store/store.js';
import type { ActivityView } from './activity-view.js';
import type { ChildView, ModelView, ViewContext } from './model-runtime.js';
import { UnservedNotes } from './served-work.js';
import { humanDuration, isoTime, until } from './view-time.js';

/**
 * Where a view finds a job's loaded workflow version: the graph engine, or a
 * `WorkflowCache` alone (a view needs nothing else of the engine).
 */
export interface WorkflowSource {
  workflow(tx: StoreTx, workflow: string, version: number): Promise<LoadedWorkflow>;
}

/** Builds a graph job's part of its view. */
export async function graphView(
  tx: StoreTx,
  engine: WorkflowSource,
  job: JobRecord,
  { children, running, now }: ViewContext,
): Promise<ModelView> {
  const wf = await engine.workflow(tx, job.workflow, job.version);
  const key = (await tx.getCounter({ job: job.id, field: COLLATION_FIELD })) ?? 0n;
  const records = latestRecords(await tx.listActivities(job.id));
  const rows = collationTable(wf.layout, key, wf.graphOrder);
  const node: CompositionalNode = {
    key: formatCollationKey(wf.layout, key),
    children: children
      .filter((c) => c.node && c.activity !== null && wf.layout.positions.has(c.activity))
      .map((c) => ({
        position: wf.layout.positions.get(c.activity as string) as number,
        node: c.node as CompositionalNode,
      })),
  };
  const activities = rows.map((row): ActivityView => {
    const record = records.get(row.activity);
    return {
      id: row.activity,
      kind: wf.compiled.activities[row.activity]?.kind ?? 'unknown',
      state: revertLabel(record?.status) ?? row.state,
      position: (wf.layout.positions.get(row.activity) as number) + 1,
      digit: row.digit,
      status: record?.status ?? null,
      attempts: record?.attempt ?? 0,
      error: record?.error ?? null,
      startedAt: isoTime(record?.startedAt ?? null),
      finishedAt: isoTime(record?.finishedAt ?? null),
    };
  });
  // Started tasks: since when each waits, for the note on one no live worker serves.
  const unserved = running
    ? await UnservedNotes.read(
        tx,
        now,
        activities
          .filter((a) => a.kind === 'task' && a.state === 'Started')
          .map((a) => records.get(a.id)?.startedAt),
      )
    : undefined;
  return {
    collation: wf.renderKey(key),
    compositional: composeKey(node),
    activities,
    waitingFor: unserved
      ? graphWaits(
          wf,
          activities,
          records,
          children,
          now,
          unserved,
          await jobMessages(tx, job, wf, activities, records),
        )
      : suspendedWaits(job.state),
    node,
  };
}

/** Each activity's newest record (a cycle leaves one per dimensional thread). */
function latestRecords(records: readonly ActivityRecord[]): Map<string, ActivityRecord> {
  const latest = new Map<string, ActivityRecord>();
  for (const r of records) {
    const seen = latest.get(r.activity);
    if (!seen || r.updatedAt >= seen.updatedAt) latest.set(r.activity, r);
  }
  return latest;
}

/** What a suspending or suspended job waits for (nothing for one that ended). */
function suspendedWaits(state: JobRecord['state']): string[] {
  if (state === 'SUSPENDING') {
    return ['suspending: waits for its running task handlers to finish, then SUSPENDED'];
  }
  if (state === 'SUSPENDED') return ['suspended: starts nothing until `weft resume`'];
  return [];
}

/**
 * The messages of a running job whose task activities have started (each started task's
 * next attempt: when it may start, what it times out after), or of one where nothing has
 * run yet (a delayed start's trigger: when it starts), else none.
 */
async function jobMessages(
  tx: StoreTx,
  job: JobRecord,
  wf: LoadedWorkflow,
  activities: readonly ActivityView[],
  records: ReadonlyMap<string, ActivityRecord>,
): Promise<readonly StreamMessage[]> {
  const tasks = activities.some(
    (a) => a.state === 'Started' && wf.compiled.activities[a.id]?.kind === 'task',
  );
  return tasks || records.size === 0 ? tx.jobMessages(job.id) : [];
}

/**
 * A started task's wait in words: a retry waiting out its backoff says when it starts,
 * else the attempt's timeout, when it has one.
 */
function taskWait(
  name: string,
  activity: string,
  attempts: number,
  message: StreamMessage | undefined,
  timeoutMs: number | undefined,
  now: number,
): string {
  const attempt = attempts > 1 ? `, attempt ${attempts}` : '';
  if (message && message.consumer === null && message.availableAt > now) {
    return `waits until ${until(message.availableAt, now)} to retry task ${name} (activity ${activity}${attempt})`;
  }
  const limit =
    timeoutMs === undefined ? '' : `, times out ${humanDuration(timeoutMs)} after its start`;
  return `waits for task ${name} (activity ${activity}${attempt}${limit})`;
}

/** What a running graph job waits for: its started tasks, sleeps, child jobs and paused hooks. */
function graphWaits(
  wf: LoadedWorkflow,
  activities: readonly ActivityView[],
  records: ReadonlyMap<string, ActivityRecord>,
  children: readonly ChildView[],
  now: number,
  unserved: UnservedNotes,
  messages: readonly StreamMessage[],
): string[] {
  const words: string[] = [];
  for (const a of activities) {
    const activity = wf.compiled.activities[a.id];
    if (!activity) continue;
    const record = records.get(a.id);
    if (a.state === 'Paused' && activity.kind === 'hook') {
      // The hook's timer was set when it started waiting.
      const at =
        activity.timeoutMs !== undefined && typeof record?.startedAt === 'number'
          ? `, at most until ${until(record.startedAt + activity.timeoutMs, now)}`
          : '';
      words.push(`waits for signal ${activity.signal ?? activity.id} (hook ${a.id})${at}`);
    } else if (a.state === 'Started') {
      if (activity.kind === 'task') {
        const task = activity.task ?? activity.id;
        const stream = taskStream(task);
        const message = messages.find((m) => {
          const payload = m.payload as unknown as TaskMessage;
          return (
            m.stream === stream &&
            payload.a === a.id &&
            payload.d === (record?.dimension ?? payload.d) &&
            !payload.revert
          );
        });
        const note = unserved.task(task, record?.startedAt, now);
        words.push(`${taskWait(task, a.id, a.attempts, message, activity.timeoutMs, now)}${note}`);
      } else if (activity.kind === 'sleep') {
        const at = (record?.input as { until?: number } | null)?.until;
        words.push(
          at === undefined
            ? `sleeps (activity ${a.id})`
            : `waits until ${until(at, now)} (sleep ${a.id})`,
        );
      } else if (activity.kind === 'await') {
        const child = (record?.output as { job?: string } | null)?.job;
        const state = children.find((c) => c.id === child)?.state;
        words.push(
          `waits for child job ${child ?? '?'}${state ? ` (${state})` : ''} (activity ${a.id})`,
        );
      } else {
        words.push(`waits for ${activity.kind} ${a.id}`);
      }
    }
  }
  // A delayed start: its trigger's step is not due yet.
  const start = messages.find(
    (m) => m.stream === ENGINE_STREAM && (m.payload as { k?: string }).k === 'enter',
  );
  if (words.length === 0 && start && start.availableAt > now) {
    words.push(`waits until ${until(start.availableAt, now)} to start`);
  }
  // Nothing under way: the job's next step is queued for a worker.
  if (words.length === 0) words.push('waits for a worker to take its next step');
  return words;
}
