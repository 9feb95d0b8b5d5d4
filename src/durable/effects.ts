/**
 * Effects: what the runtime must do, durably, after an engine function returned a new
 * instance. The engine never does I/O; it lists the work and the runtime performs it
 * (in the same transaction as saving the instance, or with the instance saved first).
 */
import type { ErrorRecord, Json } from '../store/records.js';
import type { QueuePlacement } from './decisions.js';
import type { WorkClocks } from './task-message.js';

/** Run a task on a worker; report onStart/onSuccess/onFailure/onTimeout with `uuid`. */
export interface ScheduleTaskEffect {
  type: 'scheduleTask';
  uuid: string;
  hash: string;
  name: string;
  input: Json;
  timeoutMs?: number;
  /** What its task messages carry: its timeouts and schedule-to-close deadline. */
  clocks: WorkClocks;
  branchKey: number;
  position: string;
  sync: boolean;
}

/** Start a child workflow instance; report its end with `uuid` (a good child id). */
export interface StartChildEffect {
  type: 'startChild';
  uuid: string;
  hash: string;
  workflow: string;
  input: Json[];
  branchKey: number;
  position: string;
  sync: boolean;
  /** (weft) the queue the child waits in for a slot. */
  queue?: QueuePlacement;
}

/** Start a wait's timer (when `at` is set); report `waitElapsed` with `uuid` when due. */
export interface StartWaitEffect {
  type: 'startWait';
  uuid: string;
  hash: string;
  at?: number;
  event?: string;
}

/** Cancel a wait's timer (released by its event, or the instance ended). */
export interface CancelWaitEffect {
  type: 'cancelWait';
  uuid: string;
  hash: string;
  /** False for an event wait without a timeout: it has no timer to cancel. */
  timed: boolean;
}

/** Deliver an event to an instance (possibly this one) as an `onEvent` action. */
export interface SendEventEffect {
  type: 'sendEvent';
  instance: string;
  name: string;
  data: Json;
}

/** The instance completed. */
export interface FinishedEffect {
  type: 'finished';
  output: Json;
}

/** The instance failed. */
export interface FailedEffect {
  type: 'failed';
  error: ErrorRecord;
}

/** Run a task's revert on a worker; report `revertResult` with `uuid` (the task's). */
export interface ScheduleRevertEffect {
  type: 'scheduleRevert';
  uuid: string;
  name: string;
  input: Json;
}

/** The instance reverted after a failure (its parent sees a failure). */
export interface RevertedEffect {
  type: 'reverted';
  error: ErrorRecord;
}

/** The instance was terminated. */
export interface TerminatedEffect {
  type: 'terminated';
}

/** The workflow code no longer matches the history; decisions stop until resumed. */
export interface ModifiedEffect {
  type: 'modified';
  error: ErrorRecord;
}

/** One effect. */
export type Effect =
  | ScheduleTaskEffect
  | StartChildEffect
  | StartWaitEffect
  | CancelWaitEffect
  | SendEventEffect
  | FinishedEffect
  | FailedEffect
  | ScheduleRevertEffect
  | RevertedEffect
  | TerminatedEffect
  | ModifiedEffect;
