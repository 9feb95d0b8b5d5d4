/**
 * Actions: what the runtime reports to an instance from outside a decision (Zenaton's
 * "actions from Agents"): an event, a work started / succeeded / failed / timed out, or
 * a wait whose time has come. Works are named by the `uuid` the engine gave them in its
 * `scheduleTask` / `startChild` / `startWait` effect.
 */
import type { ErrorRecord, Json } from '../store/records.js';

/** An event sent to the instance (from a client or another instance). */
export interface EventAction {
  type: 'onEvent';
  name: string;
  data?: Json;
}

/** A work (task or child workflow) began running. */
export interface StartAction {
  type: 'onStart';
  uuid: string;
}

/** A work finished with an output. */
export interface SuccessAction {
  type: 'onSuccess';
  uuid: string;
  output: Json;
}

/** A work failed. */
export interface FailureAction {
  type: 'onFailure';
  uuid: string;
  error: ErrorRecord;
  /**
   * (weft) the task attempt that failed: the runtime retries it by the task's policy
   * before the instance hears of a failure. Absent: the failure is final.
   */
  attempt?: number;
  /** (weft) the attempt timed out (the instance's `onTimeout` runs). */
  timedOut?: boolean;
}

/** A work has run longer than its timeout (it may still finish). */
export interface TimeoutAction {
  type: 'onTimeout';
  uuid: string;
}

/** A wait's timer fired: the wait ends at its own end time, not at delivery time. */
export interface WaitElapsedAction {
  type: 'waitElapsed';
  uuid: string;
}

/** A task's revert ended: `uuid` is the reverted task's; `error` when the revert failed. */
export interface RevertResultAction {
  type: 'revertResult';
  uuid: string;
  error?: ErrorRecord;
}

/** Anything {@link receiveAction} accepts. */
export type Action =
  | EventAction
  | StartAction
  | SuccessAction
  | FailureAction
  | TimeoutAction
  | WaitElapsedAction
  | RevertResultAction;
