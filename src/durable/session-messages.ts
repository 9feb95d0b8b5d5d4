/**
 * The shapes exchanged with a {@link DecisionSession}: the body of
 * `POST /decisions/{uuid}/execute` (a list of {@link WorkRequest}) and its answer, the
 * branch handed out by `GET /decisions/{uuid}/branch`, and the body of
 * `POST /decisions/{uuid}/branch`.
 */
import type { ModifiedDeciderError } from '../core/errors.js';
import type { ErrorRecord, Json } from '../store/records.js';
import type { QueuePlacement } from './decisions.js';
import type { Branch, WorkType } from './instance.js';
import type { JsonObject } from './stable-json.js';
import type { ValueSource } from './value-source.js';

/** A work as the decision executer describes it (the body of POST /execute). */
export interface WorkRequest {
  type: WorkType;
  /** Task or workflow name, event name (`event`), value kind (`value`), `wait`. */
  name: string;
  input: Json;
  /** Position on the branch, from the executer's per-branch counter. */
  position: string;
  /** True when the branch waits for the work (`execute`), false for `dispatch`. */
  sync: boolean;
  /** A task's per-attempt (start-to-close) timeout. */
  timeoutMs?: number;
  /** (weft) a task's timeout across all its attempts (schedule-to-close). */
  scheduleToCloseMs?: number;
  /** (weft) a task's heartbeat timeout. */
  heartbeatTimeoutMs?: number;
  /**
   * (weft) a task's retry settings: `{ attempts, backoff, factor, max_backoff, jitter,
   * non_retryable }`, durations in ms; absent fields (or none) take the defaults.
   */
  retry?: Json;
  /** A task's revert task, when it has one. */
  revert?: string;
  /** (weft) a child workflow's queue, when its definition or the call names one. */
  queue?: QueuePlacement;
}

/** The answer to `DecisionSession.execute`. */
export type ExecuteResult =
  | { status: 'modified'; error: ModifiedDeciderError }
  | { status: 'scheduled' }
  | { status: 'completed'; outputs: Json[]; properties?: JsonObject }
  | { status: 'failed'; error: ErrorRecord; index: number; properties: JsonObject };

/** The next branch to run (GET /decisions/{uuid}/branch). */
export interface NextBranch {
  branch: Branch & { key: number };
  /** Its execution index. */
  index: number;
  /** Its initial properties: `properties(start_index)`. */
  properties: JsonObject;
}

/** No branch left: the seed's `{}`. */
export interface NoBranch {
  branch?: undefined;
}

/** The end of a branch run (POST /decisions/{uuid}/branch). */
export interface EndBranchInput {
  /** The workflow's properties when the run stopped. */
  properties: JsonObject;
  /** The return value, when the branch returned one. */
  output?: Json;
  /** True when the run stopped at a work not yet complete (the branch goes on later). */
  parked?: boolean;
  /** Set when the branch threw: the instance fails. */
  error?: ErrorRecord;
}

/** Options of a session. */
export interface DecisionSessionOptions {
  /** Fresh values for `date()`, `random()`, `uuid()` the first time they are asked for. */
  values: ValueSource;
  /** Id of a new work; default `<instance>.<branch>.<position>` (stable, so idempotent). */
  workId?: (instanceId: string, branchKey: number, position: string) => string;
}
