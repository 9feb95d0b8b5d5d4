/**
 * Graph workflows: the file format, its compiler, the typed builder, the job-input check,
 * JSONata expressions and the graph analysis the engine uses. Pure: no I/O.
 */
export * from './analysis.js';
export {
  type ActivityOptions,
  type TransitionOptions,
  WorkflowBuilder,
  workflow,
} from './builder.js';
export {
  type CompileOptions,
  compileWorkflow,
  DEFAULT_CYCLE_MAX,
  DEFAULT_RETRY_FACTOR,
} from './compile-workflow.js';
export * from './compiled-workflow.js';
export { DURATION_UNITS, type Duration, MAX_DURATION_MS, parseDuration } from './durations.js';
export {
  compileExpression,
  type EvaluateOptions,
  evaluateExpression,
  type Json,
} from './expressions.js';
export { checkInputSchema, JobInputValidator, validateJobInput } from './job-input.js';
export * from './join-rule.js';
export {
  ACTIVITY_ID_PATTERN,
  type ActivityDocument,
  type TransitionItemDocument,
  WORKFLOW_ID_PATTERN,
  type WorkflowDocument,
  workflowDocumentSchema,
  workflowJsonSchema,
} from './workflow-document.js';
