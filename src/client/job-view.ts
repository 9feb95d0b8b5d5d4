/**
 * The one shape of a job that every command and Client method shows (`weft status`,
 * `weft list`, `weft result`, `weft run`, each with `--json`, and `Client.status`,
 * `Client.result`, `Client.list`, `Client.cancel`…): its state, its collation key (and
 * compositional key with its children's keys), one row per activity — position, kind,
 * state, digit, attempts, error, start and end — what it waits for, in words, and its
 * times as ISO 8601 strings. docs/cli.md documents it.
 */
import { collationTable, formatCollationKey } from '../core/collation.js';
import { type CompositionalNode, composeKey } from '../core/compositional-key.js';
import type { FlowState } from '../core/states.js';
import type { Instance } from '../durable/instance.js';
import { loadInstance } from '../durable/instance-store.js';
import type { GraphEngine } from '../engine/graph-engine.js';
import type { LoadedWorkflow } from '../engine/loaded-workflow.js';
import { COLLATION_FIELD } from '../engine/step.js';
import type { ActivityRecord, ErrorRecord, JobRecord, Json } from '../store/records.js';
import type { StoreTx } from '../store/store.js';

/** One activity's row (graph jobs), or one work of a code-first job. */
export interface ActivityView {
  /** The activity's id; for a code-first job, the work's name (a task's name, say). */
  id: string;
  /** The activity's kind (task, hook…); for a code-first work: task, workflow, wait, event, value. */
  kind: string;
  /**
   * The digit's name (Pending, Started, Completed, Errored…); for a code-first work its
   * status: scheduled, completed or failed.
   */
  state: string;
  /** Where its digit sits in the collation key, 1 for the leftmost; null for a code-first work. */
  position: number | null;
  /** The activity's digit; null for a code-first work. */
  digit: number | null;
  /** A code-first work's id. */
  work?: string;
  /**
   * Its record's status (PENDING, RUNNING, SUCCESS, FAILURE), null before it ran; for a
   * code-first work, the same read off its status.
   */
  status: string | null;
  /** Handler attempts so far (tasks; 0 for kinds that run no handler). */
  attempts: number;
  /** The last error, with its stack when the handler threw an Error. */
  error: ErrorRecord | null;
  /** ISO time it started, null until it has (or when not recorded). */
  startedAt: string | null;
  /** ISO time it ended, null until it has. */
  finishedAt: string | null;
}

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
  updatedAt: string;
  finishedAt: string | null;
  /** Code-first jobs: the engine's instance structure (branches, executions, statuses, …). */
  instance?: Json;
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/** Builds the view of a job and, recursively, its child jobs; `now` words the waits. */
export async function jobView(
  tx: StoreTx,
  engine: GraphEngine,
  job: JobRecord,
  depth = 0,
  now: number = Date.now(),
): Promise<{ view: JobView; node: CompositionalNode | null }> {
  const children: JobView[] = [];
  const childNodes: { activity: string | null; node: CompositionalNode }[] = [];
  if (depth < 16) {
    for (const child of await tx.listJobs({ parentId: job.id, limit: 1000 })) {
      const built = await jobView(tx, engine, child, depth + 1, now);
      children.push(built.view);
      if (built.node) childNodes.push({ activity: child.parentActivity, node: built.node });
    }
  }
  const base: JobView = {
    id: job.id,
    workflow: job.workflow,
    version: job.version,
    model: job.model,
    state: job.state,
    collation: null,
    compositional: null,
    activities: [],
    waitingFor: [],
    input: job.input,
    output: job.output,
    error: job.error,
    children,
    parent: job.parentId,
    createdAt: iso(job.createdAt) as string,
    updatedAt: iso(job.updatedAt) as string,
    finishedAt: iso(job.finishedAt),
  };
  const running = job.state === 'RUNNING' || job.state === 'PENDING';
  if (job.model !== 'graph') {
    const instance = (await loadInstance(tx, job))?.instance ?? null;
    return {
      view: {
        ...base,
        activities: instance ? works(instance) : [],
        waitingFor: !running
          ? []
          : instance
            ? instanceWaits(instance, now)
            : [`waits for a worker that runs workflow ${job.workflow}`],
        instance: instance as unknown as Json,
      },
      node: null,
    };
  }
  const wf = await engine.workflow(tx, job.workflow, job.version);
  const key = (await tx.getCounter({ job: job.id, field: COLLATION_FIELD })) ?? 0n;
  const records = latestRecords(await tx.listActivities(job.id));
  const rows = collationTable(wf.layout, key, wf.graphOrder);
  const node: CompositionalNode = {
    key: formatCollationKey(wf.layout, key),
    children: childNodes
      .filter((c) => c.activity !== null && wf.layout.positions.has(c.activity))
      .map((c) => ({
        position: wf.layout.positions.get(c.activity as string) as number,
        node: c.node,
      })),
  };
  const activities = rows.map((row): ActivityView => {
    const record = records.get(row.activity);
    return {
      id: row.activity,
      kind: wf.compiled.activities[row.activity]?.kind ?? 'unknown',
      state: row.state,
      position: (wf.layout.positions.get(row.activity) as number) + 1,
      digit: row.digit,
      status: record?.status ?? null,
      attempts: record?.attempt ?? 0,
      error: record?.error ?? null,
      startedAt: iso(record?.startedAt ?? null),
      finishedAt: iso(record?.finishedAt ?? null),
    };
  });
  return {
    view: {
      ...base,
      collation: formatCollationKey(wf.layout, key),
      compositional: composeKey(node),
      activities,
      waitingFor: running ? graphWaits(wf, activities, records, children, now) : [],
    },
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

/** "2h 5m", "3m 20s", "45s": how long until a wait ends. */
export function humanDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  const [d, h, m, sec] = [
    Math.floor(s / 86_400),
    Math.floor(s / 3600) % 24,
    Math.floor(s / 60) % 60,
    s % 60,
  ];
  const parts = d
    ? [`${d}d`, h && `${h}h`]
    : h
      ? [`${h}h`, m && `${m}m`]
      : m
        ? [`${m}m`, sec && `${sec}s`]
        : [`${sec}s`];
  return parts.filter(Boolean).join(' ');
}

/** `2026-01-31T12:00:00.000Z (in 2h 5m)`, or `(due)` once the time has come. */
function until(at: number, now: number): string {
  const left = at - now;
  return `${new Date(at).toISOString()} (${left > 0 ? `in ${humanDuration(left)}` : 'due'})`;
}

/** What a running graph job waits for: its started tasks, sleeps, child jobs and paused hooks. */
function graphWaits(
  wf: LoadedWorkflow,
  activities: readonly ActivityView[],
  records: ReadonlyMap<string, ActivityRecord>,
  children: readonly JobView[],
  now: number,
): string[] {
  const words: string[] = [];
  for (const a of activities) {
    const activity = wf.compiled.activities[a.id];
    if (!activity) continue;
    if (a.state === 'Paused' && activity.kind === 'hook') {
      words.push(`waits for signal ${activity.signal ?? activity.id} (hook ${a.id})`);
    } else if (a.state === 'Started') {
      const record = records.get(a.id);
      if (activity.kind === 'task') {
        const attempt = a.attempts > 1 ? `, attempt ${a.attempts}` : '';
        words.push(`waits for task ${activity.task ?? activity.id} (activity ${a.id}${attempt})`);
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
  // Nothing under way: the job's next step is queued for a worker.
  if (words.length === 0) words.push('waits for a worker to take its next step');
  return words;
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
    status:
      s.status === 'completed'
        ? 'SUCCESS'
        : s.status === 'failed'
          ? 'FAILURE'
          : s.started
            ? 'RUNNING'
            : 'PENDING',
    attempts: s.type === 'task' && (s.started || s.status !== 'scheduled') ? 1 : 0,
    error: s.error ?? null,
    startedAt: null,
    finishedAt: null,
  }));
}

/** What a running code-first instance waits for, in words. */
function instanceWaits(instance: Instance, now: number): string[] {
  if (instance.decision_mode === 'paused') return ['paused: waits for `weft resume`'];
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
