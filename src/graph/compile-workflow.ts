/**
 * The compiler: a workflow document (YAML or JSON text, or the object the builder makes)
 * in, a {@link CompiledWorkflow} out — or one {@link WorkflowDefinitionError} listing every
 * problem found, each with its file, line and activity. Pure: the caller reads the file.
 */
import { WorkflowDefinitionError } from '../core/errors.js';
import { checkFields } from './check-fields.js';
import { checkGraph } from './check-graph.js';
import type {
  CompiledActivity,
  CompiledTransition,
  CompiledWorkflow,
  RetryPolicy,
} from './compiled-workflow.js';
import { readDraft } from './draft.js';
import { MAX_DURATION_MS, parseDuration } from './durations.js';
import { type Locate, ProblemList } from './problem-list.js';
import { addShapeIssues } from './shape-issues.js';
import { readSourceText } from './source-text.js';
import {
  type ActivityDocument,
  type WorkflowDocument,
  workflowDocumentSchema,
} from './workflow-document.js';

/** Options for {@link compileWorkflow}. */
export interface CompileOptions {
  /** The source name (a file path) put in every problem and in the compiled workflow. */
  source?: string;
}

/** Default retry growth factor. */
export const DEFAULT_RETRY_FACTOR = 2;
/** Default most re-entries of a cycle activity. */
export const DEFAULT_CYCLE_MAX = 100;

function ms(value: unknown): number {
  // Only called on values the checks accepted.
  return parseDuration(value) ?? 0;
}

function compileRetry(
  retry: NonNullable<Extract<ActivityDocument, { kind: 'task' }>['retry']>,
): RetryPolicy {
  return {
    attempts: retry.attempts,
    backoffMs: ms(retry.backoff),
    factor: retry.factor ?? DEFAULT_RETRY_FACTOR,
    maxDelayMs: retry.maxDelay === undefined ? MAX_DURATION_MS : ms(retry.maxDelay),
  };
}

function compileActivity(
  id: string,
  doc: ActivityDocument,
  position: number,
  line?: number,
): CompiledActivity {
  const out: CompiledActivity = { id, kind: doc.kind, position, join: 'all' };
  if (doc.kind !== 'trigger' && doc.join) out.join = doc.join;
  switch (doc.kind) {
    case 'task':
      out.task = doc.task ?? id;
      if (doc.input !== undefined) out.input = doc.input;
      if (doc.retry) out.retry = compileRetry(doc.retry);
      if (doc.timeout !== undefined) out.timeoutMs = ms(doc.timeout);
      break;
    case 'hook':
      out.signal = doc.signal ?? id;
      if (doc.timeout !== undefined) out.timeoutMs = ms(doc.timeout);
      break;
    case 'sleep':
      out.durationMs = ms(doc.duration);
      break;
    case 'await':
      out.workflow = doc.workflow;
      if (doc.input !== undefined) out.input = doc.input;
      out.await = doc.await ?? true;
      break;
    case 'cycle':
      out.ancestor = doc.ancestor;
      out.max = doc.max ?? DEFAULT_CYCLE_MAX;
      break;
  }
  if (line !== undefined) out.line = line;
  return out;
}

function build(doc: WorkflowDocument, locate: Locate, source?: string): CompiledWorkflow {
  const order = Object.keys(doc.activities).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const activities: Record<string, CompiledActivity> = {};
  order.forEach((id, position) => {
    activities[id] = compileActivity(
      id,
      doc.activities[id]!,
      position,
      locate(['activities', id])?.line,
    );
  });
  const transitions: CompiledTransition[] = [];
  for (const [from, items] of Object.entries(doc.transitions ?? {})) {
    for (const item of items) {
      if (typeof item === 'string') {
        transitions.push({ from, to: item, on: 'success' });
      } else {
        transitions.push({
          from,
          to: item.to,
          on: item.on ?? 'success',
          ...(item.when !== undefined && { when: item.when }),
        });
      }
    }
  }
  const trigger = order.find((id) => activities[id]?.kind === 'trigger')!;
  return {
    workflow: doc.workflow,
    version: doc.version ?? 1,
    ...(doc.version !== undefined && { pinnedVersion: true as const }),
    ...(doc.input !== undefined && { inputSchema: structuredClone(doc.input) }),
    activities,
    order,
    trigger,
    transitions,
    ...(doc.output !== undefined && { output: doc.output }),
    ...(source !== undefined && { source }),
  };
}

/**
 * Compiles a workflow definition. `definition` is YAML or JSON text, or a document object
 * (what {@link WorkflowDocument} describes; the builder makes one). Throws
 * {@link WorkflowDefinitionError} listing every problem found; never anything else for
 * any input.
 */
export function compileWorkflow(
  definition: string | WorkflowDocument | unknown,
  options: CompileOptions = {},
): CompiledWorkflow {
  const { source } = options;
  let value: unknown = definition;
  let locate: Locate = () => undefined;
  if (typeof definition === 'string') {
    const text = readSourceText(definition);
    const problems = new ProblemList(source, text.locate);
    for (const problem of text.problems) problems.push(problem);
    if (!text.readable) throw new WorkflowDefinitionError(problems.items(), source);
    value = text.value;
    locate = text.locate;
    return compileValue(value, locate, problems, source);
  }
  return compileValue(value, locate, new ProblemList(source, locate), source);
}

function compileValue(
  value: unknown,
  locate: Locate,
  problems: ProblemList,
  source?: string,
): CompiledWorkflow {
  const shape = workflowDocumentSchema.safeParse(value);
  if (!shape.success) addShapeIssues(shape.error.issues, value, problems);
  const draft = readDraft(value);
  checkGraph(draft, problems);
  checkFields(draft, value, problems);
  if (problems.size > 0 || !shape.success) {
    throw new WorkflowDefinitionError(problems.items(), source);
  }
  return build(shape.data, locate, source);
}
