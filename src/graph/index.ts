/**
 * Graph workflows, kind-independent: the file format around the activities, the compiler
 * factory and what a kind declares to it, the job-input check, JSONata expressions and the
 * graph analysis. Pure: no I/O. weft's compiler over its kinds is `engine/compiler.ts`.
 */
export * from './analysis.js';
export * from './compiled-workflow.js';
export { type CompileOptions, type Compiler, createCompiler } from './compiler.js';
export { DURATION_UNITS, type Duration, MAX_DURATION_MS, parseDuration } from './durations.js';
export {
  compileExpression,
  type EvaluateOptions,
  evaluateExpression,
  type Json,
} from './expressions.js';
export { checkInputSchema, JobInputValidator, validateJobInput } from './job-input.js';
export * from './kind-spec.js';
export {
  ACTIVITY_ID_PATTERN,
  type TransitionItemDocument,
  WORKFLOW_ID_PATTERN,
} from './workflow-document.js';
