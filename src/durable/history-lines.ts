/**
 * The lines a code-first job leaves in its history (`weft history`): one when it starts,
 * one per action the runtime delivers (a work started, succeeded, failed or timed out; a
 * wait elapsed; an event), one per decision applied — naming the works and waits it
 * added — one per pause, resume or cancel, and one when it ends. The runtime plans them
 * where it saves the instance and writes them in the same transaction.
 */
import type { FlowState } from '../core/states.js';
import type { ErrorRecord, Json, NewHistoryEntry } from '../store/records.js';
import type { Action, FailureAction } from './actions.js';
import type { Effect } from './effects.js';
import type { Instance } from './instance.js';

/** What a code-first history line is about. */
export type DurableHistoryKind =
  | 'start'
  | 'decision'
  | 'task'
  | 'child'
  | 'timeout'
  | 'wake'
  | 'event'
  | 'pause'
  | 'resume'
  | 'cancel'
  | 'end'
  | 'dead-letter'
  | 'reopen'
  | 'revert'
  /** A task attempt began: a worker (or an agent) claimed it. */
  | 'attempt'
  | 'deadline'
  /** The job joined a queue: its queue, key and priority (store/queue-placement.ts). */
  | 'queued';

function describeError(error: ErrorRecord): string {
  return `${error.name}: ${error.message}`;
}

/** The line of an instance's start (with its execution timeout and deadline, when it has one). */
export function startLine(
  instance: Instance,
  parent: string | undefined,
  at: number,
  timeoutMs?: number,
): NewHistoryEntry {
  const startAt = instance.start_at;
  return {
    job: instance.id,
    kind: 'start',
    change: {
      state: 'RUNNING',
      workflow: instance.workflow_name,
      ...(parent ? { parent } : {}),
      ...(startAt !== undefined && { startAt: new Date(startAt).toISOString() }),
      ...(timeoutMs !== undefined
        ? { timeoutMs, deadline: new Date((startAt ?? at) + timeoutMs).toISOString() }
        : {}),
    },
    at,
  };
}

/**
 * The line of an action delivered to `instance` (as it stood before the action). A
 * dispatched work's lines say `dispatched`; `afterEnd` marks one recorded after the
 * instance ended (late-results.ts).
 */
export function actionLine(
  instance: Instance,
  action: Action,
  at: number,
  afterEnd = false,
): NewHistoryEntry {
  const job = instance.id;
  if (action.type === 'onEvent') {
    return { job, kind: 'event', change: { event: action.name }, at };
  }
  const work = instance.statuses.find((s) => s.uuid === action.uuid);
  const name: Record<string, Json> = {
    ...(work ? { name: work.name } : {}),
    ...(work && !work.sync && work.type !== 'wait' ? { dispatched: true } : {}),
    ...(afterEnd ? { afterEnd: true } : {}),
  };
  const kind = work?.type === 'workflow' ? 'child' : 'task';
  const line = (k: DurableHistoryKind, change: Record<string, Json>): NewHistoryEntry => ({
    job,
    kind: k,
    activity: action.uuid,
    change: { ...name, ...change },
    at,
  });
  switch (action.type) {
    case 'onStart':
      return line(kind, { status: 'started' });
    case 'onSuccess':
      return line(kind, { status: 'completed' });
    case 'onFailure':
      return line(kind, {
        status: 'failed',
        ...(action.attempt !== undefined ? { attempt: action.attempt } : {}),
        error: describeError(action.error),
      });
    case 'onTimeout':
      return line('timeout', {});
    case 'waitElapsed':
      return line('wake', {});
    case 'revertResult':
      return line(
        'revert',
        action.error
          ? { status: 'REVERT_FAILURE', error: describeError(action.error) }
          : { status: 'REVERTED' },
      );
  }
}

/** The line of a failed task attempt that is retried: the next attempt and its delay. */
export function retryLine(
  instance: Instance,
  action: FailureAction,
  attempt: number,
  delayMs: number,
  at: number,
): NewHistoryEntry {
  const work = instance.statuses.find((s) => s.uuid === action.uuid);
  return {
    job: instance.id,
    kind: 'task',
    activity: action.uuid,
    change: {
      ...(work ? { name: work.name } : {}),
      status: 'retrying',
      attempt,
      error: describeError(action.error),
      retryInMs: delayMs,
    },
    at,
  };
}

/** The line of a pause, resume or terminate (a cancel). */
export function controlLine(
  job: string,
  op: 'pause' | 'resume' | 'terminate',
  at: number,
): NewHistoryEntry {
  return { job, kind: op === 'terminate' ? 'cancel' : op, change: { op }, at };
}

/** What an effect added, for a decision's line; null for effects that add nothing. */
function added(effect: Effect): Json {
  switch (effect.type) {
    case 'scheduleTask':
      return { type: 'task', name: effect.name, work: effect.uuid, branch: effect.branchKey };
    case 'startChild':
      return {
        type: 'workflow',
        name: effect.workflow,
        work: effect.uuid,
        branch: effect.branchKey,
      };
    case 'startWait':
      return {
        type: 'wait',
        work: effect.uuid,
        ...(effect.at !== undefined ? { until: effect.at } : {}),
        ...(effect.event !== undefined ? { event: effect.event } : {}),
      };
    case 'sendEvent':
      return { type: 'event', name: effect.name, to: effect.instance };
    case 'scheduleRevert':
      return { type: 'revert', name: effect.name, work: effect.uuid };
    default:
      return null;
  }
}

/**
 * The line of a decision applied to an instance: the works, waits and events it added,
 * and how many executions the instance holds after it (`executions`: a properties
 * version from execution index n on was written by the first decision reaching n, which
 * dates it on the dashboard's timeline).
 */
export function decisionLine(
  job: string,
  uuid: string | null,
  effects: readonly Effect[],
  at: number,
  executions?: number,
): NewHistoryEntry {
  const modified = effects.find((e) => e.type === 'modified');
  return {
    job,
    kind: 'decision',
    change: {
      ...(uuid ? { decision: uuid } : {}),
      added: effects.map(added).filter((a) => a !== null),
      ...(executions !== undefined ? { executions } : {}),
      ...(modified ? { modified: describeError(modified.error) } : {}),
    },
    at,
  };
}

/** The line of a job's timeout: its limit and deadline, and the works it cut off. */
export function deadlineLine(
  job: string,
  limit: { timeoutMs: number; deadline: number; parent?: string },
  works: readonly string[],
  at: number,
): NewHistoryEntry {
  return {
    job,
    kind: 'deadline',
    change: {
      timeoutMs: limit.timeoutMs,
      deadline: new Date(limit.deadline).toISOString(),
      ...(limit.parent !== undefined ? { parent: limit.parent } : {}),
      works: [...works],
    },
    at,
  };
}

/** The line of a job's end (or, for `reopen` and `dead-letter`, a move its dead letter made). */
export function stateLine(
  job: string,
  kind: DurableHistoryKind,
  state: FlowState,
  error: ErrorRecord | null,
  at: number,
): NewHistoryEntry {
  return { job, kind, change: { state, ...(error ? { error: describeError(error) } : {}) }, at };
}
