/**
 * The messages between the engine and a decision executer: the {@link DecisionRequest}
 * the engine sends when it triggers a decision (the seed's "Trigger Decision" data) and
 * the {@link Decision}s that come back (the seed's "decisions from Agents").
 */
import type { RetrySettings } from '../core/retry-policy.js';
import type { ErrorRecord, Json } from '../store/records.js';
import type { Branch, PropertiesEntry, Status } from './instance.js';
import type { JsonObject } from './stable-json.js';

/** A branch the decision must run, with its key in `branches`. */
export interface OngoingBranch {
  branch: Branch;
  key: number;
}

/** What the engine sends to run one decision. */
export interface DecisionRequest {
  uuid: string;
  /** (weft) the instance, so work ids can be derived from it. */
  instance_id: string;
  workflow_name: string;
  programming_language: 'typescript';
  properties: PropertiesEntry[];
  executions: number[];
  ongoing_index: number;
  ongoing_branches: OngoingBranch[];
  ongoing_statuses: Status[];
}

/** Fields shared by every decision that records a work. */
export interface WorkDecision {
  branch_key: number;
  position: string;
  hash: string;
  uuid: string;
  name: string;
  input: Json;
  sync: boolean;
}

/** Schedule a task on a worker. */
export interface ScheduleTaskDecision extends WorkDecision {
  type: 'scheduleTask';
  /** Per-attempt (start-to-close) timeout. */
  timeout_ms?: number;
  /** (weft) timeout across all attempts, from now (schedule-to-close). */
  schedule_to_close_ms?: number;
  /** (weft) heartbeat timeout. */
  heartbeat_timeout_ms?: number;
  /** (weft) retry settings, ms (absent: the defaults). */
  retry?: RetrySettings;
  /** (weft) the task's revert task, when it has one. */
  revert?: string;
}

/** (weft) Where a child job waits for a slot before its first decision. */
export interface QueuePlacement {
  queue: string;
  key?: string;
  priority?: number;
}

/** Start a child workflow (`name` is the workflow, `input` its arguments). */
export interface ScheduleFlowDecision extends WorkDecision {
  type: 'scheduleFlow';
  /** (weft) the queue it waits in, when its workflow or the call names one. */
  queue?: QueuePlacement;
}

/** Start a wait: for an event, a duration (from the decision's trigger time), a date. */
export interface ScheduleWaitDecision extends WorkDecision {
  type: 'scheduleWait';
  event?: string;
  duration_ms?: number;
  until?: number;
}

/** Record a value (date, random, uuid, version marker) so replay sees it again. */
export interface RecordValueDecision extends WorkDecision {
  type: 'recordValue';
  /** The execution index at which it was recorded. */
  index: number;
  value: Json;
}

/** Send an event to this (`to` null) or another instance. */
export interface SendEventDecision extends WorkDecision {
  type: 'sendEvent';
  index: number;
  to: string | null;
  event_name: string;
  event_input: Json;
}

/** A branch ended with properties different from `properties(key - 1)`. */
export interface UpdatePropertiesDecision {
  type: 'updateProperties';
  key: number;
  values: JsonObject;
}

/** A branch returned a value. */
export interface SetOutputDecision {
  type: 'setOutput';
  branch_key: number;
  output: Json;
}

/** (weft) A branch reached its end (returned). */
export interface EndBranchDecision {
  type: 'endBranch';
  branch_key: number;
}

/** (weft) A branch threw: the instance fails. */
export interface FailBranchDecision {
  type: 'failBranch';
  branch_key: number;
  error: ErrorRecord;
}

/** Replay met a recorded work whose hash differs: the code was modified. */
export interface ModifiedDecision {
  type: 'modified';
  branch_key: number;
  position: string;
  expected_hash: string;
  actual_hash: string;
}

/** One decision. */
export type Decision =
  | ScheduleTaskDecision
  | ScheduleFlowDecision
  | ScheduleWaitDecision
  | RecordValueDecision
  | SendEventDecision
  | UpdatePropertiesDecision
  | SetOutputDecision
  | EndBranchDecision
  | FailBranchDecision
  | ModifiedDecision;

/** Everything one decision produced, tagged with the decision's uuid. */
export interface DecisionOutcome {
  uuid: string;
  decisions: Decision[];
}
