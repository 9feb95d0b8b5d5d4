/**
 * Durations in workflow files: a number of milliseconds, or a string of an integer and a
 * unit — `200ms`, `30s`, `5m`, `1h`, `1d`. Pure and exact: the result is whole milliseconds.
 */

/** Milliseconds per unit. */
export const DURATION_UNITS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** A duration unit. */
export type DurationUnit = keyof typeof DURATION_UNITS;

/** What a duration string looks like: digits, then one unit, nothing else. */
export const DURATION_PATTERN = /^(\d+)(ms|s|m|h|d)$/;

/** The longest duration accepted: 1000 days. */
export const MAX_DURATION_MS = 1000 * DURATION_UNITS.d;

/** A duration as written in a file or passed to the builder. */
export type Duration = number | `${number}${DurationUnit}`;

/** Human text for error messages: what a duration must look like. */
export const DURATION_HINT =
  'expected a whole number of milliseconds or a string like 200ms, 30s, 5m, 1h, 1d';

/**
 * The milliseconds a duration stands for, or `undefined` when it is not a valid duration
 * (negative, fractional, an unknown unit, over {@link MAX_DURATION_MS}, not a number or
 * string). Callers turn `undefined` into an error naming the field.
 */
export function parseDuration(value: unknown): number | undefined {
  let ms: number;
  if (typeof value === 'number') {
    ms = value;
  } else if (typeof value === 'string') {
    const match = DURATION_PATTERN.exec(value);
    if (!match) return undefined;
    ms = Number(match[1]) * DURATION_UNITS[match[2] as DurationUnit];
  } else {
    return undefined;
  }
  if (!Number.isInteger(ms) || ms < 0 || ms > MAX_DURATION_MS) return undefined;
  return ms;
}

/** A rate as written in a file or on the command line: starts per duration (`20/2s`). */
export const RATE_PATTERN = /^(\d+)\/(\d+(?:ms|s|m|h|d))$/;

/** `20/2s` as `{ limit: 20, periodMs: 2000 }`; undefined when it is not a rate. */
export function parseRate(value: unknown): { limit: number; periodMs: number } | undefined {
  const match = typeof value === 'string' ? RATE_PATTERN.exec(value.trim()) : null;
  if (!match) return undefined;
  const limit = Number(match[1]);
  const periodMs = parseDuration(match[2]);
  if (!Number.isSafeInteger(limit) || limit < 1 || periodMs === undefined || periodMs < 1) {
    return undefined;
  }
  return { limit, periodMs };
}
