/**
 * The workflow file format — the object a YAML or JSON file holds and the builder makes —
 * as zod schemas: the file around the activities, and the field types every kind shares
 * (ids, expressions, durations, join). Each kind's activity shape is in its module
 * (`engine/kinds/`); the compiler joins them into one schema, which checks a document's
 * shape and generates `schema/workflow.schema.json` (what editors validate against).
 */
import { z } from 'zod';
import { OVERLAP_POLICIES, type OverlapPolicy } from '../core/schedule-rules.js';
import { DURATION_HINT, DURATION_PATTERN, MAX_DURATION_MS, RATE_PATTERN } from './durations.js';

/** What a workflow id looks like: a letter or digit, then letters, digits, `_ . -`. */
export const WORKFLOW_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

/**
 * What an activity id looks like: a letter, then letters, digits, `_` or `-`, at most 64
 * characters; `input` is reserved (expressions see the job input under that name).
 */
export const ACTIVITY_ID_PATTERN = /^(?!input$)[A-Za-z][A-Za-z0-9_-]{0,63}$/;

/** A workflow id field. */
export const workflowId = z.string().regex(WORKFLOW_ID_PATTERN, {
  error: 'a workflow id is 1-128 letters, digits, "_", "." or "-", starting with a letter or digit',
});

/**
 * A key of the (flattened) activity map: an activity id, or the qualified id of an
 * activity inside a scope (`<scope>.<inner>`, each segment an activity id). A `.` in an
 * id the file itself writes is refused before the shape is checked.
 */
export const QUALIFIED_ID_PATTERN =
  /^(?!input(\.|$))[A-Za-z][A-Za-z0-9_-]{0,63}(\.(?!input(\.|$))[A-Za-z][A-Za-z0-9_-]{0,63})*$/;

const activityId = z.string().regex(QUALIFIED_ID_PATTERN, {
  error: 'an activity id is a letter then up to 63 letters, digits, "_" or "-", and is not "input"',
});

/** A field naming an activity. */
export const reference = z.string().min(1, { error: 'must name an activity' });

/** A JSONata expression field. */
export const expression = z
  .string()
  .min(1, { error: 'an expression must not be empty' })
  .meta({ description: 'A JSONata expression over { input, <activity id>: { output, error } }.' });

/** A free-text description field. */
export const description = z.string().meta({ description: 'Free text; ignored by the engine.' });

/** A duration field: ms or a string such as `5m`. */
export const duration = z
  .union([
    z.number().int().min(0).max(MAX_DURATION_MS),
    z.string().regex(DURATION_PATTERN, { error: DURATION_HINT }),
  ])
  .meta({ description: `A duration: ${DURATION_HINT}.` });

/** An activity's `join:` field. */
export const join = z
  .enum(['all', 'any'])
  .meta({ description: 'Wait for all incoming transitions (default) or go on at the first.' });

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

/** One entry of a file's `schedules:`: a cron schedule that starts jobs of this workflow. */
export const scheduleSchema = z
  .strictObject({
    name: z.string().meta({
      description:
        "The schedule's name, unique in the store; its jobs are named <name>@<tick time>.",
    }),
    cron: z.string().meta({
      description:
        'A cron expression: five fields (minute hour day-of-month month day-of-week), six with seconds first, or @hourly, @daily, @weekly, @monthly, @yearly.',
    }),
    timezone: z
      .string()
      .optional()
      .meta({ description: 'The IANA time zone the expression is read in (default UTC).' }),
    input: z.unknown().optional().meta({ description: "Every tick's job input (default null)." }),
    overlap: z
      .enum(OVERLAP_POLICIES as [OverlapPolicy, ...OverlapPolicy[]])
      .optional()
      .meta({
        description:
          "A tick while the last tick's job still runs: skip it (default), buffer_one (start it when that job ends), allow_all, or cancel_other (cancel that job).",
      }),
    catchup: duration.optional().meta({
      description:
        'Ticks missed by more than this (no worker ran) are skipped rather than started late (default 1m).',
    }),
  })
  .meta({ description: 'A cron schedule: each tick starts one job of this workflow.' });

/** A rate field: starts per duration. */
const rate = z.string().regex(RATE_PATTERN, {
  error: 'a rate is a number of starts per duration, such as 20/2s or 100/1m',
});

/** A file's `queue:`: the queue every job of the workflow waits in, unless its start names one. */
export const workflowQueueSchema = z.union([
  z.string().meta({ description: 'The name of a queue declared elsewhere (weft queue create).' }),
  z
    .strictObject({
      name: z.string().meta({ description: "The queue's name." }),
      key: expression.optional().meta({
        description:
          "JSONata over the job's `input`: its key for the queue's per-key limits (default: no key). A start's own key wins.",
      }),
      priority: z.number().int().min(-1_000_000).max(1_000_000).optional().meta({
        description: "Its jobs' priority, lower first (default 0). A start's own priority wins.",
      }),
      concurrency: z.number().int().min(1).max(1_000_000).optional().meta({
        description:
          'Declares the queue with this limit: at most this many of its jobs running at once. Any limit given here makes a deploy declare (or update) the queue.',
      }),
      key_concurrency: z
        .number()
        .int()
        .min(1)
        .max(1_000_000)
        .optional()
        .meta({ description: 'At most this many jobs of one key running at once.' }),
      rate: rate.optional().meta({ description: 'At most this many starts per period (20/2s).' }),
      key_rate: rate
        .optional()
        .meta({ description: 'At most this many starts of one key per period (5/1m).' }),
      throttle: z.enum(['wait', 'drop']).optional().meta({
        description:
          'A start over a rate: wait for its turn (default), or drop: refused with RATE_LIMITED.',
      }),
      aging: duration.optional().meta({
        description: 'A waiting job counts as one priority higher after this long (default 1m).',
      }),
    })
    .meta({ description: 'A queue, its key and priority, and optionally its limits.' }),
]);

/** One end state's `retention:`: a duration, or `forever`. */
const retentionValue = z
  .union([duration, z.literal('forever')])
  .meta({ description: `How long a finished job is kept: forever, or ${DURATION_HINT}.` });

/** A file's `retention:`: one value for every end state, or one per end state. */
const retentionSchema = z
  .union([
    retentionValue,
    z.strictObject({
      succeeded: retentionValue.optional(),
      failed: retentionValue.optional(),
      reverted: retentionValue.optional(),
    }),
  ])
  .meta({
    description:
      "How long the store keeps this workflow's finished jobs (with everything they wrote) before a worker prunes them: one value, or per end state (succeeded, failed, reverted; one left out gets the worker's --retention).",
  });

/** The whole file's schema, over the activity schema of the kinds the compiler knows. */
export function workflowDocumentSchemaOf<A extends z.ZodType>(activity: A) {
  return z
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
      activities: z.record(activityId, activity).meta({ description: 'Activities by id.' }),
      transitions: z
        .record(z.string(), z.array(transitionItemSchema))
        .optional()
        .meta({ description: 'Outgoing transitions, by source activity id.' }),
      output: expression.optional().meta({ description: 'JSONata producing the job output.' }),
      end: reference.optional().meta({
        description:
          'The activity that finishes the job (default: the job ends when nothing is active).',
      }),
      timeout: duration.optional().meta({
        description:
          'How long a job may run, from its start to its end (wall-clock, time suspended included). A job still running then ends FAILURE with a JobTimeoutError, and its child jobs end with it; no on: error path or revert runs. Default: no limit.',
      }),
      queue: workflowQueueSchema.optional().meta({
        description:
          'The queue its jobs wait in for a slot before their first step (unless a start names another).',
      }),
      retention: retentionSchema.optional(),
      schedules: z.array(scheduleSchema).optional().meta({
        description:
          'Cron schedules that start jobs of this workflow; a deploy stores them (and deletes those this file no longer names).',
      }),
      on_failure: z.enum(['fail', 'revert']).optional().meta({
        description:
          'What a failing job does: fail (default) ends it FAILURE; revert first runs the revert handler of every finished task that has one, newest first, and ends it REVERTED.',
      }),
    })
    .meta({ title: 'weft workflow', description: 'A weft graph workflow definition.' });
}

/** One transition list item of a workflow document. */
export type TransitionItemDocument = z.input<typeof transitionItemSchema>;
