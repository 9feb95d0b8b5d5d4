/**
 * The workflow file format — the object a YAML or JSON file holds and the builder makes —
 * as one zod schema. The compiler checks a document's shape against it, and
 * `schema/workflow.schema.json` (what editors validate against) is generated from it.
 */
import { z } from 'zod';
import { DURATION_HINT, DURATION_PATTERN, MAX_DURATION_MS } from './durations.js';

/** What a workflow id looks like: a letter or digit, then letters, digits, `_ . -`. */
export const WORKFLOW_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

/**
 * What an activity id looks like: a letter, then letters, digits, `_` or `-`, at most 64
 * characters; `input` is reserved (expressions see the job input under that name).
 */
export const ACTIVITY_ID_PATTERN = /^(?!input$)[A-Za-z][A-Za-z0-9_-]{0,63}$/;

const workflowId = z.string().regex(WORKFLOW_ID_PATTERN, {
  error: 'a workflow id is 1-128 letters, digits, "_", "." or "-", starting with a letter or digit',
});

const activityId = z.string().regex(ACTIVITY_ID_PATTERN, {
  error: 'an activity id is a letter then up to 63 letters, digits, "_" or "-", and is not "input"',
});

const reference = z.string().min(1, { error: 'must name an activity' });

const expression = z
  .string()
  .min(1, { error: 'an expression must not be empty' })
  .meta({ description: 'A JSONata expression over { input, <activity id>: { output, error } }.' });

const description = z.string().meta({ description: 'Free text; ignored by the engine.' });

const duration = z
  .union([
    z.number().int().min(0).max(MAX_DURATION_MS),
    z.string().regex(DURATION_PATTERN, { error: DURATION_HINT }),
  ])
  .meta({ description: `A duration: ${DURATION_HINT}.` });

const join = z
  .enum(['all', 'any'])
  .meta({ description: 'Wait for all incoming transitions (default) or go on at the first.' });

const retry = z
  .strictObject({
    attempts: z
      .number()
      .int()
      .min(1)
      .max(1000)
      .meta({ description: 'Total attempts, the first included.' }),
    backoff: duration.meta({ description: 'Delay before the second attempt.' }),
    factor: z
      .number()
      .min(1)
      .max(100)
      .optional()
      .meta({ description: 'Multiplier per further attempt (default 2).' }),
    maxDelay: duration.optional().meta({ description: 'Cap on any one delay (default: no cap).' }),
  })
  .meta({ description: 'Retry policy of a task.' });

const trigger = z.strictObject({
  kind: z.literal('trigger'),
  description: description.optional(),
});

const task = z.strictObject({
  kind: z.literal('task'),
  task: z
    .string()
    .min(1)
    .optional()
    .meta({ description: 'Handler name (default: the activity id).' }),
  input: expression.optional(),
  retry: retry.optional(),
  timeout: duration.optional().meta({ description: 'Per-attempt timeout.' }),
  join: join.optional(),
  description: description.optional(),
});

const hook = z.strictObject({
  kind: z.literal('hook'),
  signal: z
    .string()
    .min(1)
    .optional()
    .meta({ description: 'Signal name (default: the activity id).' }),
  timeout: duration.optional().meta({ description: 'How long to wait for the signal.' }),
  join: join.optional(),
  description: description.optional(),
});

const sleep = z.strictObject({
  kind: z.literal('sleep'),
  duration: duration.meta({ description: 'How long to sleep.' }),
  join: join.optional(),
  description: description.optional(),
});

const awaitActivity = z.strictObject({
  kind: z.literal('await'),
  workflow: workflowId.meta({ description: 'The child workflow to start.' }),
  input: expression.optional(),
  await: z
    .boolean()
    .optional()
    .meta({ description: 'false: start the child and go on (default true).' }),
  join: join.optional(),
  description: description.optional(),
});

const cycle = z.strictObject({
  kind: z.literal('cycle'),
  ancestor: reference.meta({ description: 'The upstream activity to re-enter.' }),
  max: z
    .number()
    .int()
    .min(1)
    .max(999_999)
    .optional()
    .meta({ description: 'Most re-entries (default 100).' }),
  join: join.optional(),
  description: description.optional(),
});

/** One activity of any kind. */
export const activityDocumentSchema = z.discriminatedUnion('kind', [
  trigger,
  task,
  hook,
  sleep,
  awaitActivity,
  cycle,
]);

/** One transition list item: a target id, or a target with a condition and an outcome. */
export const transitionItemSchema = z.union([
  reference,
  z.strictObject({
    to: reference,
    when: expression.optional().meta({ description: 'Fires only when this is truthy.' }),
    on: z
      .enum(['success', 'error', 'timeout'])
      .optional()
      .meta({ description: 'Which outcome of the source fires it (default success).' }),
    description: description.optional(),
  }),
]);

/** The whole file. */
export const workflowDocumentSchema = z
  .strictObject({
    $schema: z.string().optional().meta({ description: 'Where editors find this schema.' }),
    workflow: workflowId.meta({ description: 'The workflow id.' }),
    version: z
      .number()
      .int()
      .min(1)
      .optional()
      .meta({ description: 'Positive integer (default 1).' }),
    description: description.optional(),
    input: z
      .record(z.string(), z.unknown())
      .optional()
      .meta({ description: 'JSON Schema (draft-07) a job input must satisfy.' }),
    activities: z
      .record(activityId, activityDocumentSchema)
      .meta({ description: 'Activities by id.' }),
    transitions: z
      .record(z.string(), z.array(transitionItemSchema))
      .optional()
      .meta({ description: 'Outgoing transitions, by source activity id.' }),
    output: expression.optional().meta({ description: 'JSONata producing the job output.' }),
  })
  .meta({ title: 'weft workflow', description: 'A weft graph workflow definition.' });

/** A workflow document: what a YAML/JSON file holds and what the builder produces. */
export type WorkflowDocument = z.input<typeof workflowDocumentSchema>;
/** One activity of a {@link WorkflowDocument}. */
export type ActivityDocument = z.input<typeof activityDocumentSchema>;
/** One transition list item of a {@link WorkflowDocument}. */
export type TransitionItemDocument = z.input<typeof transitionItemSchema>;

/** Names of the fields that hold durations. */
export const DURATION_FIELDS: ReadonlySet<string> = new Set([
  'timeout',
  'duration',
  'backoff',
  'maxDelay',
]);

/** Names of the fields that hold JSONata expressions. */
export const EXPRESSION_FIELDS: ReadonlySet<string> = new Set(['input', 'when', 'output']);

/** The JSON Schema of the file format, for editors (`schema/workflow.schema.json`). */
export function workflowJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(workflowDocumentSchema, { target: 'draft-2020-12' }) as Record<
    string,
    unknown
  >;
}

/** The fields each activity kind allows, read from the schema. */
export const ACTIVITY_FIELDS: Readonly<Record<string, readonly string[]>> = Object.fromEntries(
  activityDocumentSchema.options.map((option) => [
    option.shape.kind.value,
    Object.keys(option.shape),
  ]),
);
