/**
 * weft's public API.
 */

export {
  Client,
  type ClientOptions,
  type Deployment,
  type EventOutcome,
  type HistoryOptions,
  type JobResult,
  type ResultOptions,
  type StartArgs,
  type Started,
  type StartedJob,
  type StartInput,
  type StartOptions,
} from './client/client.js';
export {
  DEFAULT_IDEMPOTENCY_TTL_MS,
  DUPLICATE_POLICIES,
  type DuplicatePolicy,
  type IdempotencyOptions,
} from './client/idempotent-start.js';
export type { HistoryChange, HistoryKind, JobHistoryEntry } from './client/job-history.js';
export type { ActivityView, JobView } from './client/job-view.js';
export type { PruneRequest, PruneSummary } from './client/prune.js';
export type { CreatedQueue, QueueStartOptions, Queues, QueueView } from './client/queues.js';
export type { CreatedSchedule, Schedules, ScheduleView } from './client/schedules.js';
export { type Clock, SimulatedClock, SystemClock } from './core/clock.js';
export * from './core/errors.js';
export {
  type CheckedQueue,
  DEFAULT_AGING_MS,
  type QueueSpec,
  type RateSpec,
  THROTTLE_POLICIES,
  type ThrottlePolicy,
} from './core/queue-rules.js';
export type { FinalState, RetentionPolicy } from './core/retention.js';
export type { FlowState, TaskState } from './core/states.js';
export {
  defineTask,
  defineWorkflow,
  type RetryOptions,
  type TaskDefinition,
  type TaskOptions,
  type TaskRunOptions,
  type WaitForEventOptions,
  Workflow,
  type WorkflowDefinition,
  type WorkflowOptions,
  type WorkflowQueueOption,
  withQueue,
} from './durable/index.js';
export type { Instance } from './durable/instance.js';
export { readInstance } from './durable/stored-instance.js';
export {
  type ActivityOptions,
  type TransitionOptions,
  WorkflowBuilder,
  workflow,
} from './engine/builder.js';
export { type CompileOptions, compileWorkflow } from './engine/compiler.js';
export type { CompiledActivity, CompiledWorkflow } from './engine/kinds/index.js';
export type { RetentionOption, RetentionValue } from './graph/retention.js';
export { defineQueue, type QueueDefinition } from './models/queue-spec.js';
export type { Firing, TickJob } from './models/schedule-fire.js';
export {
  type CheckedSchedule,
  type DeclareStatus,
  defineSchedule,
  OVERLAP_POLICIES,
  type ScheduleDefinition,
  type ScheduleSpec,
} from './models/schedule-spec.js';
export { openStore } from './store/open-store.js';
export type * from './store/records.js';
export type { Notice, Store, StoreTx } from './store/store.js';
export type { StoreOptions } from './store/store-options.js';
export { DEFAULT_STORE_URL, parseStoreUrl } from './store/url.js';
export {
  JOB_DURATION_BOUNDS_S,
  STEP_LATENCY_BOUNDS_S,
  TASK_DURATION_BOUNDS_S,
  WeftMetrics,
  type WeftMetricsOptions,
} from './worker/metrics/weft-metrics.js';
export {
  defineHandlers,
  type HandlerSignature,
  type TaskContext,
  type TaskHandler,
  type TaskHandlers,
  type TypedTaskHandler,
  type TypedTaskHandlers,
} from './worker/task-handler.js';
export type { AttemptOutcome, EndedAttempt, WorkObserver } from './worker/work-observer.js';
export { Worker } from './worker/worker.js';
export type { WorkerLogger, WorkerOptions } from './worker/worker-options.js';
