/**
 * The messages the graph engine and its workers exchange over store streams. All are
 * plain JSON. Engine messages go to the {@link ENGINE_STREAM}; task messages go to one
 * stream per handler name ({@link taskStream}).
 */
import type { ErrorRecord, Json, TraceContext } from '../store/records.js';

/** The stream every graph-engine step message goes to. */
export const ENGINE_STREAM = 'engine';

/** The stream a task handler's work goes to. */
export function taskStream(task: string): string {
  return `task:${task}`;
}

/** Addresses one activity of one job in one dimensional thread. */
export interface ActivityAddress {
  job: string;
  /** Activity id. */
  a: string;
  /** Dimension (`''` for the first pass, `<cycle>#<n>` inside the n-th re-entry). */
  d: string;
}

/** Leg1: run an activity (its transition fired, or the job started, or a cycle re-entered it). */
export interface EnterMessage extends ActivityAddress {
  k: 'enter';
}

/** Leg2 of a task: a worker's response. */
export interface TaskResponse extends ActivityAddress {
  /** `durable` for a code-first work (then `a` is the work's uuid). */
  model?: 'graph' | 'durable';
  status: 'pending' | 'success' | 'error';
  attempt: number;
  output?: Json;
  error?: ErrorRecord;
  /** The final failure was a timeout (takes `on: timeout` transitions). */
  timedOut?: boolean;
  /** The result of the activity's revert handler, not of its run. */
  revert?: true;
}

/** Leg2 of a hook: its signal arrived (the store adds `signal` with the data). */
export interface SignalMessage extends ActivityAddress {
  k: 'signal';
  signal?: Json;
}

/** A durable timer fired: a sleep ended or a hook's timeout elapsed. */
export interface TimerMessage extends ActivityAddress {
  k: 'wake' | 'timeout';
}

/** Leg2 of an await: the child job ended. */
export interface ChildMessage extends ActivityAddress {
  k: 'child';
  child: string;
}

/** Any message on the engine stream. */
export type EngineMessage = EnterMessage | SignalMessage | TimerMessage | ChildMessage;

/** A unit of work for a task handler. */
export interface TaskMessage extends ActivityAddress {
  /** `durable` for a code-first work (then `a` is the work's uuid). */
  model?: 'graph' | 'durable';
  task: string;
  input: Json;
  attempt: number;
  /** Per-attempt (start-to-close) timeout, when the task has one. */
  timeoutMs?: number;
  /** An attempt going longer than this without `ctx.heartbeat()` fails as timed out. */
  heartbeatTimeoutMs?: number;
  /**
   * The schedule-to-close deadline (epoch ms), when the task has one: an attempt is cut
   * there, and one claimed after it fails at once without running.
   */
  deadline?: number;
  /** A run of the activity's revert handler (`task` names it), not of the activity. */
  revert?: true;
  /**
   * The job's trace context and workflow, put on the message by a worker or client that
   * traces (worker/tracing-store.ts) so the attempt's span needs no read; the engine
   * neither writes nor reads it.
   */
  trace?: TaskTrace;
}

/** What a task message carries of its job's trace (see {@link TaskMessage.trace}). */
export interface TaskTrace extends TraceContext {
  workflow: string;
}
