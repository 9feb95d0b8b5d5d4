/**
 * What worker/, server/ and client/ ask of the engine that runs a job, whichever way its
 * workflow is written. Each model — graph (`graph-runtime.ts`, over engine/) and
 * code-first (`durable-runtime.ts`, over durable/) — implements it once, and `Models`
 * (`models.ts`) is the one place that picks a job's, a task's or a message's runtime.
 * Every operation takes the caller's transaction and leaves its writes in it.
 */
import type { CompositionalNode } from '../core/compositional-key.js';
import type { FlowState } from '../core/states.js';
import type { TaskMessage, TaskResponse } from '../engine/messages.js';
import type {
  DeadLetter,
  DefinitionRecord,
  ErrorRecord,
  JobModel,
  JobRecord,
  Json,
} from '../store/records.js';
import type { Store, StoreTx } from '../store/store.js';
import type { ActivityView } from './activity-view.js';
import type { TimelineStep } from './step-timeline.js';

/** An engine stream of a model and what runs its messages. */
export interface ModelRoute {
  stream: string;
  /** Runs one message (its payload). */
  handle(tx: StoreTx, payload: Json): Promise<void>;
  /** Runs several messages as one unit (set-based), when the model can. */
  handleBatch?(tx: StoreTx, payloads: readonly Json[]): Promise<void>;
}

/** What to start. */
export interface StartRequest {
  id: string;
  workflow: string;
  /** The stored definition; none for a code-first workflow no process has registered yet. */
  definition: DefinitionRecord | undefined;
  /** As the client got it: a graph job's input, or a code-first `handle`'s argument(s). */
  input: Json;
  /** Its execution timeout in ms, over the workflow's own (see `engine/job-deadline.ts`). */
  timeoutMs?: number;
  /** A delayed start: epoch ms before which it takes no step (see `Client.start`). */
  startAt?: number;
}

/** How an HTTP agent is handed a task (`TaskScheduled`). */
export interface AgentTask {
  /** Names this hand-out in `POST /tasks/{uuid}`. */
  uuid: string;
  /** The work's hash. */
  hash: string;
}

/** A child job, as its parent's view needs it. */
export interface ChildView {
  id: string;
  state: FlowState;
  /** The parent's activity that started it. */
  activity: string | null;
  /** Its compositional-key node, when its model has a key. */
  node: CompositionalNode | null;
}

/** What a view is built with, besides the job. */
export interface ViewContext {
  children: readonly ChildView[];
  /** The job is RUNNING or PENDING (it still waits for something). */
  running: boolean;
  /** Words waits relative to this time. */
  now: number;
  /** Code-first: also derive the job's steps from its history (`weft status`). */
  steps?: boolean;
}

/** The model's part of a job's view. */
export interface ModelView {
  collation: string | null;
  compositional: string | null;
  activities: ActivityView[];
  waitingFor: string[];
  /** Code-first: the instance structure. */
  instance?: Json;
  /** Code-first, when the context asked for them: its steps in the order they ran. */
  steps?: TimelineStep[];
  /** True when `steps` were read off only the first lines of a longer history. */
  stepsTruncated?: boolean;
  /** This job's compositional-key node, for its parent's key. */
  node: CompositionalNode | null;
}

/** One model's engine, as the layers above see it. */
export interface ModelRuntime {
  readonly model: JobModel;
  /** The engine streams this model's steps come from. */
  readonly routes: readonly ModelRoute[];
  /** Makes what this process runs known in the store (code-first workflows by name). */
  announce(store: Store): Promise<void>;
  /**
   * Checks a start before its transaction opens (a ValidationError refuses it): what may
   * take time runs here, outside any lock, and bounded. Absent when there is nothing to check.
   */
  check?(request: StartRequest): Promise<void>;
  /** Starts a job (idempotent by id: an existing id returns that job). */
  start(tx: StoreTx, request: StartRequest): Promise<{ job: JobRecord; created: boolean }>;
  /**
   * Replaces the input of a job that has not taken its first step (a debounced start
   * given a later input); false when the job has ended or gone on.
   */
  replaceInput(tx: StoreTx, job: JobRecord, input: Json): Promise<boolean>;
  /** Told of claimed tasks before their handlers run; absent when the model need not be. */
  tasksStarted?(tx: StoreTx, tasks: readonly TaskMessage[]): Promise<void>;
  /**
   * Records task results (and `pending` progress), several as one unit where it can.
   * `hold`: the caller calls {@link settle} on `tx` before it commits, so the runtime may
   * keep writes until then (to add the starts of the tasks the results scheduled to them).
   */
  taskResults(tx: StoreTx, responses: readonly TaskResponse[], hold?: boolean): Promise<void>;
  /** Writes what `taskResults` with `hold` kept; absent when the model keeps nothing. */
  settle?(tx: StoreTx): Promise<void>;
  /** How an agent is handed a claimed task (after {@link tasksStarted}). */
  agentTask(tx: StoreTx, task: TaskMessage): Promise<AgentTask>;
  /** Cancels a job that has not ended; returns the child jobs to cancel with it. */
  cancel(tx: StoreTx, job: JobRecord): Promise<string[]>;
  /** The model's part of a job's view. */
  view(tx: StoreTx, job: JobRecord, context: ViewContext): Promise<ModelView>;
  /** Ends the job of a dead letter in FAILURE with `error`; false when it is not running. */
  endDeadLettered(tx: StoreTx, job: string, dead: DeadLetter, error: ErrorRecord): Promise<boolean>;
  /** Reopens a job that dead letter `dead` ended; false when it did not end that way. */
  reopenDeadLettered(tx: StoreTx, job: string, dead: DeadLetter): Promise<boolean>;
}
