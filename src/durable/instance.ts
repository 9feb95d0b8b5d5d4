/**
 * The code-first instance: Zenaton's "Instance Data Structure in Engine", field for
 * field, as plain JSON the store keeps in a job's `context`. Field names follow the seed
 * (snake_case) so a stored instance reads like the specification. Fields the seed does
 * not list but the engine needs are marked "(weft)".
 */
import type { RetrySettings } from '../core/retry-policy.js';
import type { ErrorRecord, Json } from '../store/records.js';
import type { JsonObject } from './stable-json.js';

/** What triggered a branch. */
export type BranchType = 'handle' | 'onEvent' | 'onStart' | 'onSuccess' | 'onFailure' | 'onTimeout';

/** What kind of work a status, branch or effect is about. */
export type WorkType = 'task' | 'workflow' | 'wait' | 'value' | 'event';

/** One branch: a portion of workflow code run mono-threaded, with its trigger data. */
export interface Branch {
  type: BranchType;
  /** onEvent: the event. */
  event_name?: string;
  event_input?: Json;
  /** onStart / onSuccess / onFailure / onTimeout: the triggering work. */
  task_name?: string;
  task_input?: Json;
  task_output?: Json;
  error_name?: string;
  error_input?: ErrorRecord;
  /** The branch's return value, once it has one. */
  output?: Json;
  /** (weft) handle: the workflow's input, the arguments of `handle(...input)`. */
  input?: Json[];
  /** (weft) the triggering work's kind and id. */
  work_type?: WorkType;
  work_uuid?: string;
  /** (weft) true once the branch has reached its end. */
  ended?: boolean;
}

/** A work's status. */
export type WorkStatus = 'scheduled' | 'completed' | 'failed';

/** Status of one known work (task, child workflow, wait, recorded value, sent event). */
export interface Status {
  branch_key: number;
  position: string;
  hash: string;
  status: WorkStatus;
  /** Index (in `executions`) of the branch for which this work was completed. */
  completion_index?: number;
  output?: Json;
  /** (weft) the failure, when `status` is `failed`. */
  error?: ErrorRecord;
  /** (weft) the work's id, as the runtime knows it. */
  uuid: string;
  /** (weft) what the work is, for the onStart/onSuccess/… branches it triggers. */
  type: WorkType;
  name: string;
  input: Json;
  /** (weft) true when its branch waits for it (`execute`), false for `dispatch`. */
  sync: boolean;
  /** (weft) true once an onStart for it was received. */
  started?: boolean;
  /** (weft) when the decision that met it recorded it (epoch ms). */
  scheduled_at?: number;
  /** (weft) when its onStart was received: a worker began running it. */
  started_at?: number;
  /** (weft) when its result was taken: completed or failed. */
  finished_at?: number;
  /** (weft) a task's per-attempt (start-to-close) timeout, when it has one. */
  timeout_ms?: number;
  /** (weft) a task's heartbeat timeout, when it has one. */
  heartbeat_timeout_ms?: number;
  /** (weft) a task's schedule-to-close deadline (epoch ms), when it has one. */
  deadline?: number;
  /** (weft) a task's retry settings as written (ms; absent fields and absent: the defaults). */
  retry?: RetrySettings;
  /** (weft) a task's current attempt, once it was retried (absent: 1). */
  attempt?: number;
  /**
   * (weft) set by a rerun (`instance-rerun.ts`) on a result it kept: the job whose run
   * this result comes from. The work did not run in this instance.
   */
  kept_from?: string;
  /** (weft) the task that undoes this one (`defineTask(…, { revert })`), when it has one. */
  revert?: string;
  /**
   * (weft) where its revert is, once the instance reverts: the task machine's REVERTING,
   * REVERTED or REVERT_FAILURE (absent: not reverted; its state is SUCCESS or FAILURE).
   */
  revert_state?: 'REVERTING' | 'REVERTED' | 'REVERT_FAILURE';
}

/** A running wait (for restoring timers and matching events). */
export interface Wait {
  hash: string;
  /** End of the wait in epoch ms, or null for an event wait without timeout. */
  timestamp: number | null;
  event?: string;
  /** (weft) the wait's work id. */
  uuid: string;
}

/** One stored properties version: `values` hold from execution index `key` on. */
export interface PropertiesEntry {
  key: number;
  values: JsonObject;
}

/** Buffered action types ("handle" only once, at start). */
export type BufferedType =
  | 'handle'
  | 'onEvent'
  | 'onStart'
  | 'onSuccess'
  | 'onFailure'
  | 'onTimeout';

/** Something that happened, waiting for the next decision. */
export interface BufferedAction {
  /** Epoch ms, used to order the buffer. */
  timestamp: number;
  type: BufferedType;
  data: {
    /** handle: the workflow input. */
    input?: Json[];
    event_name?: string;
    event_input?: Json;
    uuid?: string;
    output?: Json;
    error?: ErrorRecord;
  } | null;
  /** (weft) reception sequence number: the order among equal timestamps. */
  seq: number;
}

/** Whether decisions may be triggered (`reverting`: no more decisions, reverts run). */
export type DecisionMode = 'run' | 'paused' | 'modified' | 'reverting' | 'terminated';

/** Where the instance is in its life. */
export type InstanceState = 'running' | 'completed' | 'failed' | 'reverted' | 'terminated';

/** A code-first workflow instance, as the engine keeps it. */
export interface Instance {
  id: string;
  /** (weft) the caller's id, used by the runtime to make start idempotent. */
  custom_id: string | null;
  workflow_name: string;
  programming_language: 'typescript';
  branches: Branch[];
  /** Branch keys in execution order; a position in it is an execution index. */
  executions: number[];
  statuses: Status[];
  waits: Wait[];
  /** Properties versions, stored only when they change, by execution index. */
  properties: PropertiesEntry[];
  /**
   * (weft) true while `properties(0)` is not known yet: the instance was started by a
   * process without the workflow's code (a client, or a worker starting a child it has
   * no code for), so its first entry is an empty placeholder. The first process with the
   * code to run a decision for it writes the workflow's initial properties there first.
   */
  properties_pending?: boolean;
  buffer: BufferedAction[];
  /** (weft) next reception sequence number for `buffer`. */
  buffer_seq: number;
  /** Index of the first execution of the current (or last) decision. */
  ongoing_index: number | null;
  /** Executions before this index belong to decisions already applied. */
  decision_current_index: number;
  decision_ongoing: boolean;
  decision_mode: DecisionMode;
  /** (weft) id of the decision in flight, and the engine time it was triggered. */
  decision_uuid: string | null;
  decision_triggered_at: number | null;
  /**
   * (weft) `revert` when its workflow was defined with `{ onFailure: 'revert' }`: a
   * failure reverts its finished tasks before it ends (set by the first process with the
   * code).
   */
  on_failure?: 'revert';
  /**
   * (weft) the job's deadline (epoch ms) when it has an execution timeout: its timer is
   * cancelled when the instance ends first (`engine/job-deadline.ts`).
   */
  deadline?: number;
  /**
   * (weft) a delayed start's time (epoch ms): its first decision is triggered at this
   * time (its message not claimable before it), and its deadline counts from it.
   */
  start_at?: number;
  /** (weft) life cycle, result and bookkeeping. */
  state: InstanceState;
  output: Json;
  error: ErrorRecord | null;
  created_at: number;
  updated_at: number;
}

/**
 * `properties(n)`: the properties after the first `n` executions, that is the values of
 * the entry with the greatest key not above `n`. Entries are sorted by key.
 */
export function propertiesAt(entries: readonly PropertiesEntry[], n: number): JsonObject {
  let lo = 0;
  let hi = entries.length - 1;
  let found = 0;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if ((entries[mid] as PropertiesEntry).key <= n) {
      found = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return (entries[found] as PropertiesEntry).values;
}

/**
 * The index of work `uuid`'s status, or -1. Searched from the newest: actions and
 * results mostly come for recent works.
 */
export function statusIndexOf(statuses: readonly Status[], uuid: string): number {
  for (let i = statuses.length - 1; i >= 0; i--) {
    if ((statuses[i] as Status).uuid === uuid) return i;
  }
  return -1;
}
