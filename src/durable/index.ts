/**
 * Code-first workflows (Zenaton's decision model): what a user writes (`defineTask`,
 * `defineWorkflow`, `Workflow`), the pure engine over an {@link Instance}
 * (`startInstance`, `receiveAction`, `tryTriggerDecision`, `applyDecisions`, pause /
 * resume / terminate), how an instance is stored (`loadInstance`, `planInstanceWrites`), the Agent-side {@link DecisionSession}, and the TypeScript
 * decision executer (`runDecision`).
 */

export type { RetryOptions } from '../engine/retry-document.js';
export type * from './actions.js';
export type { RunDecisionOptions } from './decision-executer.js';
export { errorRecordOf, runDecision } from './decision-executer.js';
export type {
  DecisionSessionOptions,
  EndBranchInput,
  ExecuteResult,
  NextBranch,
  NoBranch,
  WorkRequest,
} from './decision-session.js';
export { DecisionSession } from './decision-session.js';
export type * from './decisions.js';
export type {
  AnyWork,
  TaskDefinition,
  TaskOptions,
  TaskRunOptions,
  WorkArgs,
  WorkCall,
  WorkCalls,
  WorkflowDefinition,
  WorkflowMethods,
  WorkflowOptions,
  WorkflowQueueOption,
  WorkOutput,
  WorkOutputs,
} from './definitions.js';
export { defineTask, defineWorkflow, withQueue } from './definitions.js';
export type * from './effects.js';
export type { EngineResult } from './engine-actions.js';
export { receiveAction } from './engine-actions.js';
export type { InstanceResult, InstanceStatus } from './engine-control.js';
export {
  instanceResult,
  instanceStatus,
  pauseInstance,
  resumeInstance,
  terminateInstance,
} from './engine-control.js';
export { applyDecisions, modifiedError } from './engine-decisions.js';
export type { StartInstanceInput } from './engine-start.js';
export { startInstance } from './engine-start.js';
export type { TriggerContext, TriggerResult } from './engine-trigger.js';
export { currentDecisionRequest, redeliverDecision, tryTriggerDecision } from './engine-trigger.js';
export type * from './instance.js';
export { propertiesAt } from './instance.js';
export type { EntryKind, InstanceEntry, InstanceHead } from './instance-journal.js';
export { foldJournal, journalChanges } from './instance-journal.js';
export type { InstanceLife } from './instance-life.js';
export { flowStateOf, lifeOf } from './instance-life.js';
export type { InstanceWrites, LoadedInstance } from './instance-store.js';
export { InstanceCache, loadInstance, planInstanceWrites } from './instance-store.js';
export { readInstance } from './stored-instance.js';
export type { ValueSource } from './value-source.js';
export { seededValueSource, systemValueSource } from './value-source.js';
export type { WaitForEventOptions, WorkInfo } from './workflow.js';
export { Workflow } from './workflow.js';
export { initialProperties } from './workflow-object.js';
