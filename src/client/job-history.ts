/**
 * A job's history as `Client.history` and `weft history` show it: one entry per committed
 * step, in order — what kind of step, which activity (or code-first work, with its name)
 * in which dimension, what it changed, when (ISO 8601, UTC) and which worker committed it.
 */
import type { FlowState } from '../core/states.js';
import type { DurableHistoryKind } from '../durable/history-lines.js';
import type { Instance } from '../durable/instance.js';
import type { GraphHistoryKind } from '../engine/history.js';
import { durableTimeline } from '../models/step-timeline.js';
import type { HistoryEntry, JobRecord, Json } from '../store/records.js';

/** What a history entry is about (graph steps and code-first events share most names). */
export type HistoryKind = GraphHistoryKind | DurableHistoryKind;

/** What a step changed. Every field is optional: each kind of step says what applies. */
export interface HistoryChange {
  /** Graph: each activity whose digit moved, `[before, after]`. */
  digits?: Record<string, [number, number]>;
  /** Graph: the collation key after the step. */
  collation?: string;
  /** The status the step wrote on its activity (graph), or a work's (`started`, `completed`, `failed`). */
  status?: string;
  /** The attempt the step wrote on its activity (graph), a task's next attempt (`retrying`), or the attempt that began (`attempt`). */
  attempt?: number;
  /** A failed attempt is retried: the next one is not claimed before this many ms. */
  retryInMs?: number;
  /** An error the step recorded, as `Name: message`. */
  error?: string;
  /** The job's state, when the step moved it (`start`, `end`, `cancel`, `reopen`…). */
  state?: FlowState;
  /** `start`: the workflow (and version, graph) and the parent job, if any. */
  workflow?: string;
  version?: number;
  parent?: string;
  /** Code-first: the work's name (a task's, a child workflow's), or the event's (`event`). */
  name?: string;
  event?: string;
  /** Code-first `decision`: its id, and the works, waits and events it added. */
  decision?: string;
  added?: Json[];
  /** Code-first `decision`: how many executions the instance holds after it. */
  executions?: number;
  /** Code-first `decision`: the code no longer matched the history. */
  modified?: string;
  /** Code-first `pause`, `resume`, `cancel`: the operation. */
  op?: string;
  /** Code-first `task`, `child`: the work was dispatched (its code did not wait for it). */
  dispatched?: boolean;
  /** Code-first `task`, `child`: recorded after the job had ended (a dispatched work, say). */
  afterEnd?: boolean;
  [key: string]: Json | undefined;
}

/** One entry of a job's history. */
export interface JobHistoryEntry {
  /** 1, 2, 3… in commit order. */
  seq: number;
  kind: HistoryKind;
  /** The graph activity, or the code-first work's id; null for the job as a whole. */
  activity: string | null;
  /**
   * Code-first: the name of the work `activity` is the id of — its task's or child
   * workflow's name, `sleep`, `wait until` or `wait for <event>` (as `weft status` names
   * its steps); absent on graph jobs and on lines of the job as a whole.
   */
  name?: string;
  /** The dimensional thread (`''` outside cycles). */
  dimension: string;
  change: HistoryChange;
  /** ISO 8601 time it was planned, in UTC. */
  at: string;
  /** The consumer id of the worker that committed it; null for a client (start, cancel…). */
  worker: string | null;
}

/**
 * The name of each work of a code-first job by its id, as its steps are named
 * (models/step-timeline.ts): a task's or child workflow's name, `sleep`, `wait for …`.
 */
export function workNames(job: JobRecord, instance: Instance | null): Map<string, string> {
  const names = new Map<string, string>();
  if (!instance) return names;
  for (const step of durableTimeline(job, instance, [], false).steps) {
    if (step.work !== null && step.kind !== 'revert') names.set(step.work, step.name);
  }
  return names;
}

/**
 * A stored history line as an entry; `names` (a code-first job's {@link workNames}) names
 * its work, else the line's own `name`.
 */
export function historyEntryView(
  entry: HistoryEntry,
  names?: ReadonlyMap<string, string>,
): JobHistoryEntry {
  const change = (entry.change ?? {}) as HistoryChange;
  const name =
    names && entry.activity !== null
      ? (names.get(entry.activity) ?? (typeof change.name === 'string' ? change.name : undefined))
      : undefined;
  return {
    seq: entry.seq,
    kind: entry.kind as HistoryKind,
    activity: entry.activity,
    ...(name !== undefined ? { name } : {}),
    dimension: entry.dimension,
    change,
    at: new Date(entry.at).toISOString(),
    worker: entry.worker,
  };
}
