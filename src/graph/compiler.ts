/**
 * The compiler, built over a table of activity kinds: a workflow document (YAML or JSON
 * text, or the object the builder makes) in, a {@link CompiledWorkflow} out — or one
 * {@link WorkflowDefinitionError} listing every problem found, each with its file, line
 * and activity. Pure: the caller reads the file. The engine builds the one compiler weft
 * uses over its kinds (`engine/compiler.ts`).
 */
import { z } from 'zod';
import { WorkflowDefinitionError } from '../core/errors.js';
import type { CheckedSchedule } from '../core/schedule-rules.js';
import { checkFields } from './check-fields.js';
import { checkGraph } from './check-graph.js';
import { checkFileQueue, type FileQueue } from './check-queue.js';
import { checkFileRetention } from './check-retention.js';
import { checkSchedules } from './check-schedules.js';
import type {
  CompiledActivityBase,
  CompiledTransition,
  CompiledWorkflow,
} from './compiled-workflow.js';
import { readDraft } from './draft.js';
import { type Duration, parseDuration } from './durations.js';
import type { ActivityShape, KindSpec } from './kind-spec.js';
import { kindTable } from './kind-table.js';
import { type Locate, ProblemList } from './problem-list.js';
import { checkRetention } from './retention.js';
import { flattenScopes, originalPath } from './scopes.js';
import { addShapeIssues } from './shape-issues.js';
import { readSourceText } from './source-text.js';
import { type TransitionItemDocument, workflowDocumentSchemaOf } from './workflow-document.js';

/** Options for a compiler's `compileWorkflow`. */
export interface CompileOptions {
  /** The source name (a file path) put in every problem and in the compiled workflow. */
  source?: string;
}

/** The document an activity of kind spec `S` is written as. */
type DocumentOf<S> = S extends KindSpec<infer Shape, CompiledActivityBase> ? z.input<Shape> : never;
/** The compiled activity of kind spec `S`. */
type CompiledOf<S> = S extends KindSpec<ActivityShape, infer C> ? C : never;

/** A workflow document over the activity kinds `Specs`. */
export interface WorkflowDocumentOf<Activity> {
  $schema?: string;
  workflow: string;
  version?: number;
  description?: string;
  input?: Record<string, unknown>;
  activities: Record<string, Activity>;
  transitions?: Record<string, TransitionItemDocument[]>;
  output?: string;
  end?: string;
  on_failure?: 'fail' | 'revert';
  timeout?: Duration;
}

/** A compiler over a fixed table of activity kinds. */
export interface Compiler<Specs extends readonly KindSpec[]> {
  /** The activity kinds, by name. */
  kinds: readonly string[];
  /**
   * Compiles a workflow definition: YAML or JSON text, or a document object. Throws
   * {@link WorkflowDefinitionError} listing every problem found; never anything else.
   */
  compileWorkflow(
    definition: string | WorkflowDocumentOf<DocumentOf<Specs[number]>> | unknown,
    options?: CompileOptions,
  ): CompiledWorkflow<CompiledOf<Specs[number]>>;
  /** The zod schema of the whole file. */
  documentSchema: z.ZodType;
  /** The JSON Schema of the file format, for editors (`schema/workflow.schema.json`). */
  jsonSchema(): Record<string, unknown>;
}

/** Builds the compiler for the activity kinds `specs` (a trigger kind among them). */
export function createCompiler<const Specs extends readonly KindSpec[]>(
  specs: Specs,
): Compiler<Specs> {
  const kinds = kindTable(specs);
  const shapes = specs.map((s) => s.document) as unknown as [ActivityShape, ...ActivityShape[]];
  const documentSchema = workflowDocumentSchemaOf(z.discriminatedUnion('kind', shapes));
  const known = new Set(kinds.names);

  function build(
    doc: z.output<typeof documentSchema>,
    locate: Locate,
    scopeOf: ReadonlyMap<string, string>,
    schedules: CheckedSchedule[],
    fileQueue: FileQueue,
    source?: string,
  ): CompiledWorkflow {
    const order = Object.keys(doc.activities).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const activities: Record<string, CompiledActivityBase> = {};
    order.forEach((id, position) => {
      const activity = doc.activities[id] as { kind: string; join?: 'all' | 'any' };
      const line = locate(originalPath(['activities', id]))?.line;
      const scope = scopeOf.get(id);
      const base: CompiledActivityBase = {
        id,
        kind: activity.kind,
        position,
        join: activity.join ?? 'all',
        ...(line !== undefined && { line }),
        ...(scope !== undefined && { scope }),
      };
      activities[id] = kinds.specs.get(activity.kind)!.compile(activity as never, base);
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
      ...(doc.end !== undefined && { end: doc.end }),
      ...(doc.on_failure === 'revert' && { onFailure: 'revert' as const }),
      ...(doc.timeout !== undefined && { timeoutMs: parseDuration(doc.timeout) ?? 0 }),
      ...(schedules.length > 0 && { schedules }),
      ...(fileQueue.queue && { queue: fileQueue.queue }),
      ...(fileQueue.declaration && { queueDeclaration: fileQueue.declaration }),
      ...(doc.retention !== undefined && { retention: checkRetention(doc.retention, 'retention') }),
      ...(source !== undefined && { source }),
    };
  }

  function compileValue(
    value: unknown,
    locate: Locate,
    problems: ProblemList,
    source?: string,
  ): CompiledWorkflow {
    const flat = flattenScopes(value, kinds.references);
    for (const problem of flat.problems) problems.add(problem.path, problem.message);
    const shape = documentSchema.safeParse(flat.value);
    if (!shape.success) addShapeIssues(shape.error.issues, flat.value, problems, kinds);
    const draft = { ...readDraft(flat.value, known), scopes: flat.scopes, scopeOf: flat.scopeOf };
    checkGraph(draft, problems, kinds);
    checkFields(draft, flat.value, problems, kinds);
    const schedules = shape.success ? checkSchedules(shape.data, problems) : [];
    const fileQueue = shape.success ? checkFileQueue(shape.data, problems) : {};
    if (shape.success) checkFileRetention(shape.data.retention, problems);
    if (problems.size > 0 || !shape.success) {
      throw new WorkflowDefinitionError(problems.items(), source);
    }
    return build(shape.data, locate, flat.scopeOf, schedules, fileQueue, source);
  }

  function compileWorkflow(definition: unknown, options: CompileOptions = {}): CompiledWorkflow {
    const { source } = options;
    if (typeof definition === 'string') {
      const text = readSourceText(definition);
      const problems = new ProblemList(source, text.locate, originalPath);
      for (const problem of text.problems) problems.push(problem);
      if (!text.readable) throw new WorkflowDefinitionError(problems.items(), source);
      return compileValue(text.value, text.locate, problems, source);
    }
    const locate: Locate = () => undefined;
    return compileValue(definition, locate, new ProblemList(source, locate, originalPath), source);
  }

  return {
    kinds: kinds.names,
    compileWorkflow: compileWorkflow as Compiler<Specs>['compileWorkflow'],
    documentSchema,
    jsonSchema: () =>
      z.toJSONSchema(documentSchema, { target: 'draft-2020-12' }) as Record<string, unknown>,
  };
}
