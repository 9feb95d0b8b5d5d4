/**
 * A job's steps on a time axis, for the dashboard's timeline (`GET /api/jobs/:id`'s
 * `timeline`). A code-first job's steps read like its code: the tasks, child workflows,
 * waits (durations and events, with their deadlines), recorded values and sent events
 * its code met, the events it received, the changes of its properties and the reverts
 * of its tasks — in the order they ran, each with its start, end, duration, outcome and
 * (tasks) attempts. A graph job's steps are its activity records (a cycle's threads
 * apart). Times come from the instance's statuses and the job's history; a step the
 * history cannot date has null times. Pure.
 */
import type { Instance, Status } from '../durable/instance.js';
import type {
  ActivityRecord,
  ErrorRecord,
  HistoryEntry,
  JobRecord,
  Json,
} from '../store/records.js';
import { type AttemptSpan, attemptSpans, linesByTask, taskKey } from './attempt-spans.js';

/** What a step is. Graph steps carry their activity's kind (task, hook, timer…). */
export type StepKind =
  | 'task'
  | 'workflow'
  | 'wait'
  | 'value'
  | 'send'
  | 'event'
  | 'properties'
  | 'revert'
  | (string & {});

/** One step of a job. */
export interface TimelineStep {
  kind: StepKind;
  /** The task's, child workflow's or event's name; a graph step's activity id. */
  name: string;
  /** The code-first work's id (a child workflow's is its job id); a graph step's activity id. */
  work: string | null;
  /** A graph step's dimensional thread (`''` outside cycles). */
  dimension: string;
  /**
   * Where it is: PENDING (not started), RUNNING (a worker runs it, or it waits),
   * SUCCESS, FAILURE; a revert's REVERTING, REVERTED or REVERT_FAILURE; SKIPPED (graph).
   */
  status: string;
  /** Its code did not wait for it (`dispatch`). */
  dispatched: boolean;
  /** ISO time it was scheduled (the decision that met it), when known. */
  scheduledAt: string | null;
  /** ISO time it began: a worker started it, a wait was set, an event came. */
  startedAt: string | null;
  /** ISO time it ended; null while it runs, or when never recorded. */
  finishedAt: string | null;
  /** `finishedAt - startedAt` in ms; null until it has ended. */
  durationMs: number | null;
  /** Tasks: each attempt, with its error and the backoff a retry waited out. */
  attempts: AttemptSpan[];
  input?: Json;
  output?: Json;
  error: ErrorRecord | null;
  /** Waits: the ISO time it lasts at most until (null: an event wait without one). */
  until?: string | null;
  /** Waits for an event, and received events: the event's name. */
  event?: string;
  /** Properties: the values that changed, after the decision that changed them. */
  changed?: Json;
  /**
   * A rerun's kept step: the job it ran in. Its result is that run's, recorded, not run
   * again; its times are null (its `durationMs` is that run's) and it comes first.
   */
  keptFrom?: string;
}

/** `GET /api/jobs/:id`'s `timeline`. */
export interface JobTimeline {
  /** ISO time the job was created (or its delayed start, when later). */
  start: string;
  /** ISO time it ended; null while it runs. */
  end: string | null;
  /** The steps in the order they ran (by start; ties in the order the code met them). */
  steps: TimelineStep[];
  /** True when the history was longer than was read: later steps may lack times. */
  truncated: boolean;
}

type Change = Record<string, Json | undefined>;
const iso = (ms: number | null | undefined) =>
  ms === null || ms === undefined ? null : new Date(ms).toISOString();
const changeOf = (line: HistoryEntry): Change =>
  line.change && typeof line.change === 'object' && !Array.isArray(line.change)
    ? (line.change as Change)
    : {};
const span = (from: string | null, to: string | null) =>
  from && to ? new Date(to).getTime() - new Date(from).getTime() : null;

/** A status's step status. */
function statusOf(s: Status): string {
  if (s.status === 'completed') return 'SUCCESS';
  if (s.status === 'failed') return 'FAILURE';
  return s.started || s.type === 'wait' ? 'RUNNING' : 'PENDING';
}

/** What each wait's decision line said of it: its deadline and event. */
function waitsAdded(
  history: readonly HistoryEntry[],
): Map<string, { until?: number; event?: string }> {
  const out = new Map<string, { until?: number; event?: string }>();
  for (const line of history) {
    if (line.kind !== 'decision') continue;
    const added = changeOf(line).added;
    if (!Array.isArray(added)) continue;
    for (const a of added) {
      if (!a || typeof a !== 'object' || Array.isArray(a) || a.type !== 'wait') continue;
      if (typeof a.work !== 'string') continue;
      out.set(a.work, {
        ...(typeof a.until === 'number' ? { until: a.until } : {}),
        ...(typeof a.event === 'string' ? { event: a.event } : {}),
      });
    }
  }
  return out;
}

/** A wait's times: it began when its decision's clock started counting, ended when it woke. */
function waitTimes(
  s: Status,
  lines: readonly HistoryEntry[],
  added?: { until?: number; event?: string },
): { startedAt: number | null; finishedAt: number | null; until: number | null; event?: string } {
  const input = (
    s.input && typeof s.input === 'object' && !Array.isArray(s.input) ? s.input : {}
  ) as Record<string, Json>;
  const event = typeof input.event === 'string' ? input.event : added?.event;
  const durationMs = typeof input.durationMs === 'number' ? input.durationMs : undefined;
  // A sleep that was already over when its decision was applied left no decision line
  // naming its deadline: its work's end is its deadline.
  const due =
    added?.until ??
    (typeof input.until === 'number' ? input.until : undefined) ??
    (event === undefined && durationMs !== undefined ? s.finished_at : undefined) ??
    null;
  const scheduled = s.scheduled_at ?? null;
  const startedAt =
    durationMs !== undefined && due !== null
      ? Math.min(due - durationMs, scheduled ?? Number.POSITIVE_INFINITY)
      : scheduled;
  // It ends when the engine woke it (its `wake` line), or took the event that ended it.
  const woke = lines.find((l) => l.kind === 'wake')?.at ?? s.finished_at ?? null;
  const finishedAt =
    s.status === 'scheduled' || woke === null ? null : Math.max(woke, startedAt ?? woke);
  return { startedAt, finishedAt, until: due, ...(event !== undefined ? { event } : {}) };
}

/** The step of one work of a code-first instance. */
function workStep(
  s: Status,
  lines: readonly HistoryEntry[],
  added?: { until?: number; event?: string },
): TimelineStep {
  const scheduledAt = iso(s.scheduled_at);
  if (s.type === 'wait') {
    const w = waitTimes(s, lines, added);
    const startedAt = iso(w.startedAt);
    const finishedAt = iso(w.finishedAt);
    return {
      kind: 'wait',
      name:
        w.event !== undefined
          ? `wait for ${w.event}`
          : typeof (s.input as Record<string, Json> | null)?.until === 'number'
            ? 'wait until'
            : 'sleep',
      work: s.uuid,
      dimension: '',
      status: statusOf(s),
      dispatched: false,
      scheduledAt,
      startedAt,
      finishedAt,
      durationMs: span(startedAt, finishedAt),
      attempts: [],
      ...(s.status === 'completed' && w.event !== undefined ? { output: s.output ?? null } : {}),
      error: s.error ?? null,
      until: iso(w.until),
      ...(w.event !== undefined ? { event: w.event } : {}),
    };
  }
  const attempts = s.type === 'task' ? attemptSpans(lines) : [];
  const firstStart = attempts.find((a) => a.startedAt)?.startedAt ?? null;
  const startedAt =
    s.type === 'task' || s.type === 'workflow'
      ? (firstStart ?? iso(s.started_at) ?? (s.status === 'scheduled' ? null : scheduledAt))
      : scheduledAt;
  const finishedAt = s.status === 'scheduled' ? null : (iso(s.finished_at) ?? null);
  // An older history without attempt lines: the work's own start and end stand for its one attempt.
  if (s.type === 'task' && attempts.length === 0 && startedAt) {
    attempts.push({
      attempt: s.attempt ?? 1,
      startedAt,
      finishedAt,
      outcome:
        s.status === 'completed' ? 'completed' : s.status === 'failed' ? 'failed' : 'running',
      error: s.error ? `${s.error.name}: ${s.error.message}` : null,
      retryAt: null,
    });
  }
  return {
    kind: s.type === 'event' ? 'send' : s.type,
    name: s.name,
    work: s.uuid,
    dimension: '',
    status: statusOf(s),
    dispatched: !s.sync && (s.type === 'task' || s.type === 'workflow'),
    scheduledAt,
    startedAt,
    finishedAt,
    durationMs: span(startedAt, finishedAt),
    attempts,
    input: s.input,
    ...(s.status === 'completed' ? { output: s.output ?? null } : {}),
    error: s.error ?? null,
  };
}

/** The step of a task's revert, once it began. */
function revertStep(s: Status, lines: readonly HistoryEntry[]): TimelineStep | null {
  if (!s.revert_state) return null;
  const attempts = attemptSpans(lines, true);
  const startedAt = attempts[0]?.startedAt ?? null;
  const last = attempts.at(-1);
  const finishedAt = s.revert_state === 'REVERTING' ? null : (last?.finishedAt ?? null);
  return {
    kind: 'revert',
    name: s.revert ?? `revert ${s.name}`,
    work: s.uuid,
    dimension: '',
    status: s.revert_state,
    dispatched: false,
    scheduledAt: startedAt,
    startedAt,
    finishedAt,
    durationMs: span(startedAt, finishedAt),
    attempts,
    error: null,
  };
}

/** The values of `next` that differ from `before`. */
function changedValues(before: Record<string, Json>, next: Record<string, Json>): Json {
  const out: Record<string, Json> = {};
  for (const [k, v] of Object.entries(next)) {
    if (JSON.stringify(before[k]) !== JSON.stringify(v)) out[k] = v;
  }
  for (const k of Object.keys(before)) if (!(k in next)) out[k] = null;
  return out;
}

/** The property changes, each dated by the first decision that reached its execution index. */
function propertySteps(instance: Instance, history: readonly HistoryEntry[]): TimelineStep[] {
  const reached: { executions: number; at: number }[] = [];
  for (const line of history) {
    const n = line.kind === 'decision' ? changeOf(line).executions : undefined;
    if (typeof n === 'number') reached.push({ executions: n, at: line.at });
  }
  const out: TimelineStep[] = [];
  instance.properties.forEach((entry, i) => {
    if (i === 0) return;
    const before = (instance.properties[i - 1] as { values: Record<string, Json> }).values;
    const at = iso(reached.find((r) => r.executions >= entry.key)?.at);
    out.push({
      kind: 'properties',
      name: 'properties',
      work: null,
      dimension: '',
      status: 'SUCCESS',
      dispatched: false,
      scheduledAt: at,
      startedAt: at,
      finishedAt: at,
      durationMs: at ? 0 : null,
      attempts: [],
      error: null,
      changed: changedValues(before, entry.values as Record<string, Json>),
    });
  });
  return out;
}

/** The events a code-first job received. */
function eventSteps(history: readonly HistoryEntry[]): TimelineStep[] {
  return history
    .filter((line) => line.kind === 'event')
    .map((line) => {
      const name = String(changeOf(line).event ?? '');
      const at = iso(line.at);
      return {
        kind: 'event',
        name,
        work: null,
        dimension: '',
        status: 'SUCCESS',
        dispatched: false,
        scheduledAt: at,
        startedAt: at,
        finishedAt: at,
        durationMs: 0,
        attempts: [],
        error: null,
        event: name,
      };
    });
}

/**
 * Steps in the order they ran: by when they were scheduled (or began); undated steps
 * last; ties keep their order, except that a property change comes before the works the
 * same decision scheduled (the code that awaits them ran after it changed the values).
 */
function inOrder(steps: TimelineStep[]): TimelineStep[] {
  const time = (s: TimelineStep) => {
    // A rerun's kept steps come before anything the new job ran.
    if (s.keptFrom !== undefined) return Number.NEGATIVE_INFINITY;
    const t = s.scheduledAt ?? s.startedAt;
    return t ? new Date(t).getTime() : Number.POSITIVE_INFINITY;
  };
  const rank = (s: TimelineStep) => (s.kind === 'properties' ? 0 : 1);
  return steps
    .map((step, i) => ({ step, i, t: time(step), r: rank(step) }))
    .sort((a, b) => a.t - b.t || a.r - b.r || a.i - b.i)
    .map((x) => x.step);
}

function bounds(job: JobRecord, instance?: Instance | null): { start: string; end: string | null } {
  const start = Math.max(job.createdAt, instance?.start_at ?? job.createdAt);
  return { start: iso(start) as string, end: iso(job.finishedAt) };
}

/** A code-first job's timeline (no steps before a worker with its code has run it). */
export function durableTimeline(
  job: JobRecord,
  instance: Instance | null,
  history: readonly HistoryEntry[],
  truncated: boolean,
): JobTimeline {
  if (!instance) return { ...bounds(job), steps: [], truncated };
  const lines = linesByTask(history);
  const waits = waitsAdded(history);
  const steps: TimelineStep[] = [];
  const reverts: TimelineStep[] = [];
  for (const s of instance.statuses) {
    const own = lines.get(taskKey(s.uuid, '')) ?? [];
    const step = workStep(s, own, waits.get(s.uuid));
    steps.push(
      s.kept_from === undefined
        ? step
        : {
            ...step,
            keptFrom: s.kept_from,
            scheduledAt: null,
            startedAt: null,
            finishedAt: null,
            attempts: [],
            durationMs:
              s.started_at !== undefined && s.finished_at !== undefined
                ? s.finished_at - s.started_at
                : null,
          },
    );
    const revert = revertStep(s, own);
    if (revert) reverts.push(revert);
  }
  // Reverts run newest task first, so two that begin in one millisecond keep that order.
  steps.push(...reverts.reverse(), ...propertySteps(instance, history), ...eventSteps(history));
  return { ...bounds(job, instance), steps: inOrder(steps), truncated };
}

/** A graph job's timeline: each activity record (each thread of a cycle), by start. */
export function graphTimeline(
  job: JobRecord,
  records: readonly ActivityRecord[],
  kinds: Readonly<Record<string, string>>,
  history: readonly HistoryEntry[],
  truncated: boolean,
): JobTimeline {
  const lines = linesByTask(history);
  const steps = records.map((r): TimelineStep => {
    const kind = kinds[r.activity] ?? 'activity';
    const attempts =
      kind === 'task' ? attemptSpans(lines.get(taskKey(r.activity, r.dimension)) ?? []) : [];
    const finishedAt = iso(r.finishedAt);
    // A step that ends as it starts (a trigger) records only its end.
    const startedAt = iso(r.startedAt) ?? attempts[0]?.startedAt ?? finishedAt;
    return {
      kind,
      name: r.activity,
      work: r.activity,
      dimension: r.dimension,
      status: r.status,
      dispatched: false,
      scheduledAt: startedAt,
      startedAt,
      finishedAt,
      durationMs: span(startedAt, finishedAt),
      attempts,
      input: r.input,
      ...(r.status === 'SUCCESS' ? { output: r.output } : {}),
      error: r.error,
    };
  });
  // Records come by activity name, and inOrder keeps the order of steps that start in the
  // same millisecond. A step that ends as it starts (a trigger) ended before anything it
  // led to started: it goes first among those, not after a task whose name sorts first.
  const instant = (s: TimelineStep) =>
    s.finishedAt !== null && s.finishedAt === s.startedAt ? 0 : 1;
  steps.sort((a, b) => instant(a) - instant(b));
  return { ...bounds(job), steps: inOrder(steps), truncated };
}
