/**
 * A `retention` as a workflow file, `defineWorkflow` or `weft worker --retention` writes
 * it: one duration (`30d`) or `forever` for every end state, or per end state
 * (`{ succeeded: 7d, failed: 30d, reverted: forever }`; a state left out falls back to
 * the worker's default). Checked here into a {@link RetentionPolicy}; pure.
 */
import { ValidationError } from '../core/errors.js';
import {
  RETENTION_STATES,
  type RetentionPolicy,
  type RetentionStateName,
  uniformPolicy,
} from '../core/retention.js';
import { DURATION_HINT, type Duration, parseDuration } from './durations.js';

/** One state's retention: a duration of at least 1 ms, or `forever`. */
export type RetentionValue = Duration | 'forever';

/** A retention as written: one value for every end state, or one per end state. */
export type RetentionOption = RetentionValue | Partial<Record<RetentionStateName, RetentionValue>>;

/** A problem with a retention, at a path under it (`[]`: the value itself). */
export interface RetentionProblem {
  path: string[];
  message: string;
}

const VALUE_HINT = `expected forever or a duration of at least 1 ms (${DURATION_HINT})`;

function valueMs(value: unknown): number | null | undefined {
  if (value === 'forever') return null;
  const ms = parseDuration(value);
  return ms !== undefined && ms >= 1 ? ms : undefined;
}

/** What is wrong with `value` as a retention (nothing: it is one). */
export function retentionProblems(value: unknown): RetentionProblem[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return valueMs(value) === undefined
      ? [{ path: [], message: `${JSON.stringify(value)} is not a retention: ${VALUE_HINT}` }]
      : [];
  }
  const problems: RetentionProblem[] = [];
  const names = Object.keys(RETENTION_STATES);
  for (const [key, v] of Object.entries(value)) {
    if (!names.includes(key)) {
      problems.push({
        path: [key],
        message: `${JSON.stringify(key)} is not an end state: expected ${names.join(', ')}`,
      });
    } else if (valueMs(v) === undefined) {
      problems.push({ path: [key], message: `${JSON.stringify(v)}: ${VALUE_HINT}` });
    }
  }
  return problems;
}

/**
 * `value` as a policy; a `ValidationError` naming `where` (and the state) when it is not
 * a retention.
 */
export function checkRetention(value: unknown, where: string): RetentionPolicy {
  const [problem] = retentionProblems(value);
  if (problem) {
    const at = problem.path.length > 0 ? `${where}.${problem.path.join('.')}` : where;
    throw new ValidationError(problem.message, at);
  }
  if (value === null || typeof value !== 'object') {
    return uniformPolicy(valueMs(value) as number | null);
  }
  const policy: RetentionPolicy = {};
  for (const [name, state] of Object.entries(RETENTION_STATES)) {
    const v = (value as Record<string, unknown>)[name];
    if (v !== undefined) policy[state] = valueMs(v) as number | null;
  }
  return policy;
}
