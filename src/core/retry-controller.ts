/**
 * Retry controllers, as OpenStack TaskFlow defines them: an object guarding a subflow (a
 * weft `scope`) that gives each run of it a value and, when the run fails, decides what
 * happens next:
 *
 * - `RETRY`: revert the scope's finished work (newest first) and run it again with the
 *   next value;
 * - `REVERT`: revert the scope's work and let the failure go on outwards (the enclosing
 *   scope's controller, else the job's `on_failure`, decides);
 * - `REVERT_ALL`: revert the scope's work and then the whole job, whatever the
 *   controllers around it would have decided.
 *
 * The controllers: `{ times: N }` (TaskFlow's Times: up to N runs, the value is the run's
 * number), `{ for_each: [...] }` (ForEach: one run per value until one succeeds) and its
 * expression form (ParameterizedForEach: the values come from the job input), `revert`
 * (AlwaysRevert) and `revert_all` (AlwaysRevertAll). When a retrying controller runs out
 * of runs it decides REVERT, as TaskFlow's do by default.
 *
 * Pure: the engine evaluates a `for_each` expression and passes its values in.
 */

/** A compiled retry controller. */
export type RetryController =
  | { kind: 'times'; times: number }
  | { kind: 'for_each'; values: RetryValue[] }
  | { kind: 'for_each'; expression: string }
  | { kind: 'revert' }
  | { kind: 'revert_all' };

/** A value a controller gives a run (`retry.value` in expressions). */
export type RetryValue =
  | null
  | boolean
  | number
  | string
  | RetryValue[]
  | { [key: string]: RetryValue };

/** What a controller decides when a run of its scope failed. */
export type RetryDecision = 'RETRY' | 'REVERT' | 'REVERT_ALL';

/** The error code a REVERT_ALL failure carries outwards, so every level reverts. */
export const REVERT_ALL_CODE = 'REVERT_ALL';

/**
 * The decision after run `attempt` (1 for the first) failed. `values` are the for_each
 * values (evaluated for the expression form); `revertAll` is true when the failure
 * already asks for REVERT_ALL (an inner controller decided it), which no controller
 * overrides.
 */
export function decideRetry(
  controller: RetryController,
  attempt: number,
  values: readonly RetryValue[],
  revertAll = false,
): RetryDecision {
  if (revertAll) return 'REVERT_ALL';
  switch (controller.kind) {
    case 'times':
      return attempt < controller.times ? 'RETRY' : 'REVERT';
    case 'for_each':
      return attempt < values.length ? 'RETRY' : 'REVERT';
    case 'revert':
      return 'REVERT';
    case 'revert_all':
      return 'REVERT_ALL';
  }
}

/** The value run `attempt` (1 for the first) gets: its number, or the for_each value. */
export function retryValue(
  controller: RetryController,
  attempt: number,
  values: readonly RetryValue[],
): RetryValue {
  if (controller.kind === 'times') return attempt;
  if (controller.kind === 'for_each') return values[attempt - 1] ?? null;
  return null;
}
