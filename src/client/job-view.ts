/**
 * The one shape of a job that every command and Client method shows (`weft status`,
 * `weft list`, `weft result`, `weft run`, each with `--json`, and `Client.status`,
 * `Client.result`, `Client.list`, `Client.cancel`…): its state, its collation key (and
 * compositional key with its children's keys), one row per activity — position, kind,
 * state, digit, attempts, error, start and end — what it waits for, in words, and its
 * times as ISO 8601 strings. docs/cli.md documents it.
 */
import type { CompositionalNode } from '../core/compositional-key.js';
import type { FlowState } from '../core/states.js';
import { deadlineRef, startAtRef } from '../engine/job-deadline.js';
import type { ActivityView } from '../models/activity-view.js';
import type { JobViewSource } from '../models/job-views.js';
import type { ChildView } from '../models/model-runtime.js';
import type { TimelineStep } from '../models/step-timeline.js';
import { isoTime } from '../models/view-time.js';
import type { ErrorRecord, JobRecord, Json, QueueItem } from '../store/records.js';
import type { StoreTx } from '../store/store.js';
import { RESUMPTIONS_FIELD } from '../worker/resumption.js';

export type { ActivityView } from '../models/activity-view.js';
export { humanDuration } from '../models/view-time.js';

/** A job as every command and Client method shows it. */
export interface JobView {
  id: string;
  workflow: string;
  version: number;
  model: JobRecord['model'];
  state: FlowState;
  /** Graph jobs: the collation key, one digit per activity (see `activities[].position`). */
  collation: string | null;
  /** Graph jobs with child jobs: the key with its children's keys. */
  compositional: string | null;
  /** In the graph's order (graph jobs; `position` places each in the key), in order of scheduling (code-first). */
  activities: ActivityView[];
  /** What the job waits for, in words ("waits for task charge"); empty once it ended. */
  waitingFor: string[];
  input: Json;
  output: Json;
  error: ErrorRecord | null;
  children: JobView[];
  parent: string | null;
  /** ISO times. */
  createdAt: string;
  /**
   * A delayed start's time (`Client.start`'s `startAt` / `delayMs`, `weft start --at` /
   * `--delay`): the job takes no step before it; null for a job that started at once.
   */
  startAt: string | null;
  updatedAt: string;
  finishedAt: string | null;
  /**
   * How many times a worker took the job over after its holder's lease ran out (it
   * died, or stalled) and resumed it (RESUMING → SUSPENDED → RUNNING); 0 when never.
   * `weft history` has a `resumption` line for each, naming the worker and the message.
   */
  resumptions: number;
  /**
   * When the job's execution timeout ends it (ISO), and the limit in ms, when it has one
   * (`timeout:`, `defineWorkflow`'s `timeoutMs`, `Client.start`'s `timeoutMs`); null
   * otherwise. A job still running then ends FAILURE with a JobTimeoutError.
   */
  deadline: string | null;
  timeoutMs: number | null;
  /**
   * The queue the job was started on (`Client.start`'s `queue`), while it waits for a
   * slot (`waiting`) or runs on one (`running`); null otherwise, and once it ended.
   */
  queue: {
    name: string;
    key: string;
    priority: number;
    state: 'waiting' | 'running';
    enqueuedAt: string;
    admittedAt: string | null;
  } | null;
  /** Code-first jobs: the engine's instance structure (branches, executions, statuses, …). */
  instance?: Json;
  /**
   * Code-first jobs, when asked for (`weft status`, `Client.status(id, { steps: true })`):
   * its steps in the order they ran — tasks (with each attempt), child workflows, waits,
   * sent and received events, property changes and reverts — each with its start, end,
   * duration and outcome, read off the job's history (the dashboard's timeline).
   */
  steps?: TimelineStep[];
  /**
   * True when `steps` were read off only the first lines of the job's history
   * (TIMELINE_HISTORY_LIMIT, 20,000): the steps after them are not there.
   */
  stepsTruncated?: boolean;
}

/** What {@link jobView} adds to the view on request. */
export interface JobViewOptions {
  /** Code-first jobs (and their children): derive `steps` from the history. */
  steps?: boolean;
}

/** `waits in queue charges for a slot (key cus_1, priority 0) since …`. */
function queueWait(item: QueueItem): string {
  const key = item.key === '' ? '' : `key ${item.key}, `;
  return `waits in queue ${item.queue} for a slot (${key}priority ${item.priority}) since ${isoTime(item.enqueuedAt)}`;
}

/** Builds the view of a job and, recursively, its child jobs; `now` words the waits. */
export async function jobView(
  tx: StoreTx,
  models: JobViewSource,
  job: JobRecord,
  depth = 0,
  now: number = Date.now(),
  options: JobViewOptions = {},
): Promise<{ view: JobView; node: CompositionalNode | null }> {
  const children: JobView[] = [];
  const childViews: ChildView[] = [];
  if (depth < 16) {
    for (const child of await tx.listJobs({ parentId: job.id, limit: 1000 })) {
      const built = await jobView(tx, models, child, depth + 1, now, options);
      children.push(built.view);
      childViews.push({
        id: child.id,
        state: built.view.state,
        activity: child.parentActivity,
        node: built.node,
      });
    }
  }
  const running = job.state === 'RUNNING' || job.state === 'PENDING';
  const deadline = await tx.getCounter(deadlineRef(job.id));
  const startAt = await tx.getCounter(startAtRef(job.id));
  const item = await tx.getQueueItem(job.id);
  const { node, instance, steps, stepsTruncated, ...part } = await models.ofJob(job).view(tx, job, {
    children: childViews,
    running,
    now,
    ...(options.steps ? { steps: true } : {}),
  });
  const view: JobView = {
    id: job.id,
    workflow: job.workflow,
    version: job.version,
    model: job.model,
    state: job.state,
    collation: part.collation,
    compositional: part.compositional,
    activities: part.activities,
    waitingFor:
      item?.state === 'waiting'
        ? [queueWait(item), ...part.waitingFor.filter((w) => w.startsWith('waits until'))]
        : part.waitingFor,
    input: job.input,
    output: job.output,
    error: job.error,
    children,
    parent: job.parentId,
    createdAt: isoTime(job.createdAt) as string,
    startAt: startAt === undefined ? null : isoTime(Number(startAt)),
    updatedAt: isoTime(job.updatedAt) as string,
    finishedAt: isoTime(job.finishedAt),
    resumptions: Number((await tx.getCounter({ job: job.id, field: RESUMPTIONS_FIELD })) ?? 0n),
    deadline: deadline === undefined ? null : isoTime(Number(deadline)),
    timeoutMs:
      deadline === undefined ? null : Number(deadline) - Number(startAt ?? BigInt(job.createdAt)),
    queue: item
      ? {
          name: item.queue,
          key: item.key,
          priority: item.priority,
          state: item.state,
          enqueuedAt: isoTime(item.enqueuedAt) as string,
          admittedAt: isoTime(item.admittedAt),
        }
      : null,
    ...(instance !== undefined && { instance }),
    ...(steps !== undefined && { steps }),
    ...(stepsTruncated && { stepsTruncated }),
  };
  return { view, node };
}
