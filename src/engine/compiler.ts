/**
 * weft's workflow compiler: the graph compiler built over the table of activity kinds.
 * `compileWorkflow` turns YAML/JSON text or a document object into a
 * {@link CompiledWorkflow}, or throws one WorkflowDefinitionError listing every problem.
 */
import { type CompileOptions, createCompiler, type WorkflowDocumentOf } from '../graph/compiler.js';
import type { TransitionItemDocument } from '../graph/workflow-document.js';
import { type ActivityDocument, type CompiledWorkflow, KINDS } from './kinds/index.js';

export type { ActivityDocument, CompileOptions, TransitionItemDocument };

/** A workflow document: what a YAML/JSON file holds and what the builder produces. */
export type WorkflowDocument = WorkflowDocumentOf<ActivityDocument>;

const compiler = createCompiler(KINDS);

/**
 * Compiles a workflow definition. `definition` is YAML or JSON text, or a document object
 * (what {@link WorkflowDocument} describes; the builder makes one). Throws
 * WorkflowDefinitionError listing every problem found; never anything else for any input.
 */
export function compileWorkflow(
  definition: string | WorkflowDocument | unknown,
  options: CompileOptions = {},
): CompiledWorkflow {
  return compiler.compileWorkflow(definition, options) as CompiledWorkflow;
}

/** The zod schema of the workflow file. */
export const workflowDocumentSchema = compiler.documentSchema;

/** The JSON Schema of the file format, for editors (`schema/workflow.schema.json`). */
export function workflowJsonSchema(): Record<string, unknown> {
  return compiler.jsonSchema();
}
