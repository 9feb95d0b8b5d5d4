/**
 * The `retry:` object as a user writes it, for both models: a graph task's `retry:` in a
 * workflow file and `defineTask(…, { retry })` in code take the same fields, checked by
 * the same schema, and become the same {@link RetryPolicy} (`core/retry-policy.ts`).
 *
 * ```yaml
 * retry: { attempts: 5, backoff: 1s, factor: 2, max_backoff: 1m, jitter: 0.2,
 *          non_retryable: [ValidationError] }
 * ```
 *
 * Every field is optional; absent ones take the default (`DEFAULT_RETRY`). Durations are
 * milliseconds or strings such as `200ms`, `30s`. `maxDelay` is the older spelling of
 * `max_backoff`, still read.
 */
import { z } from 'zod';
import { ValidationError } from '../core/errors.js';
import { type RetryPolicy, type RetrySettings, retryPolicy } from '../core/retry-policy.js';
import { type Duration, parseDuration } from '../graph/durations.js';
import { duration } from '../graph/workflow-document.js';

/** The retry fields as written: durations as `'1s'` strings or milliseconds. */
export interface RetryOptions {
  /** Total attempts, the first included (1 = no retry; default 3). */
  attempts?: number;
  /** Delay before the second attempt (default 1s). */
  backoff?: Duration;
  /** Each further delay is the previous one times this (default 2). */
  factor?: number;
  /** No delay exceeds this (default 100 × backoff). */
  max_backoff?: Duration;
  /** Up to this fraction of each delay is added at random, 0–1 (default 0). */
  jitter?: number;
  /** Error names that end the retries at once, beside `NonRetryableError`. */
  non_retryable?: readonly string[];
}

/** The schema of a `retry:` object (graph files, `defineTask`). */
export const retryDocument = z
  .strictObject({
    attempts: z
      .number()
      .int()
      .min(1)
      .max(1000)
      .optional()
      .meta({ description: 'Total attempts, the first included (default 3; 1 = no retry).' }),
    backoff: duration
      .optional()
      .meta({ description: 'Delay before the second attempt (default 1s).' }),
    factor: z
      .number()
      .min(1)
      .max(100)
      .optional()
      .meta({ description: 'Multiplier per further attempt (default 2).' }),
    max_backoff: duration
      .optional()
      .meta({ description: 'Cap on any one delay (default 100 × backoff).' }),
    maxDelay: duration
      .optional()
      .meta({ description: 'Older spelling of max_backoff, still read.', deprecated: true }),
    jitter: z.number().min(0).max(1).optional().meta({
      description:
        'Up to this fraction of each delay is added at random (0–1, default 0); the delay never gets shorter.',
    }),
    non_retryable: z.array(z.string().min(1)).optional().meta({
      description:
        'Error names that end the retries at once (a handler can also throw NonRetryableError).',
    }),
  })
  .meta({
    description:
      'Retry policy of a task (default: 3 attempts, 1s then 2s apart). Durations are ms or strings like 200ms, 30s.',
  });

/** The duration fields of a `retry:` object. */
export const RETRY_DURATIONS = ['backoff', 'max_backoff', 'maxDelay'] as const;

type RetryDocument = z.infer<typeof retryDocument>;

function ms(value: unknown, field: string, where: string): number | undefined {
  if (value === undefined) return undefined;
  const parsed = parseDuration(value);
  if (parsed === undefined) {
    throw new ValidationError(
      `bad duration ${JSON.stringify(value)} in retry.${field}: milliseconds, or a string like 200ms, 30s, 5m, 1h, 1d (at most 1000d)`,
      where,
    );
  }
  return parsed;
}

/** A checked `retry:` object as settings in milliseconds. */
export function retrySettings(doc: RetryDocument | RetryOptions, where: string): RetrySettings {
  const written = doc as RetryDocument;
  const backoff = ms(written.backoff, 'backoff', where);
  const max = ms(written.max_backoff ?? written.maxDelay, 'max_backoff', where);
  return {
    ...(written.attempts !== undefined && { attempts: written.attempts }),
    ...(backoff !== undefined && { backoff }),
    ...(written.factor !== undefined && { factor: written.factor }),
    ...(max !== undefined && { max_backoff: max }),
    ...(written.jitter !== undefined && { jitter: written.jitter }),
    ...(written.non_retryable !== undefined && { non_retryable: [...written.non_retryable] }),
  };
}

/** Why `max_backoff` cannot work with `backoff`, or undefined. */
export function retryProblem(settings: RetrySettings): string | undefined {
  const policy = retryPolicy(settings);
  if (settings.max_backoff !== undefined && policy.maxBackoffMs < policy.backoffMs) {
    return `max_backoff (${policy.maxBackoffMs}ms) is less than backoff (${policy.backoffMs}ms)`;
  }
  return undefined;
}

/**
 * Checks retry options given in code (`defineTask`, `.with()`) and returns them in
 * milliseconds; a bad field throws a {@link ValidationError} naming it.
 */
export function checkRetryOptions(options: unknown, where: string): RetrySettings {
  const parsed = retryDocument.safeParse(options);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = ['retry', ...(issue?.path ?? [])].join('.');
    throw new ValidationError(`${path}: ${issue?.message ?? 'invalid'}`, where);
  }
  const settings = retrySettings(parsed.data, where);
  const problem = retryProblem(settings);
  if (problem) throw new ValidationError(`retry: ${problem}`, where);
  return settings;
}

/** The policy of written settings (defaults for what they leave out). */
export function policyOf(settings: RetrySettings | undefined): RetryPolicy {
  return retryPolicy(settings);
}
