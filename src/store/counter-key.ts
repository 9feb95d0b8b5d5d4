/**
 * How counters are keyed and named, the same on every backend: a counter is stored under
 * (job, activity, dimension, field), `''` for an absent activity or dimension, and
 * `listCounters` names it `field` for a job counter and `activity/dimension/field` for an
 * activity's.
 */
import type { CounterRef } from './records.js';

/** The stored key of a counter: job, activity, dimension, field. */
export function counterKey(ref: CounterRef): [string, string, string, string] {
  return [ref.job, ref.activity ?? '', ref.dimension ?? '', ref.field];
}

/** A counter's key as one string, for maps and sets of counters in memory. */
export function counterKeyText(ref: CounterRef): string {
  return counterKey(ref).join('\u0000');
}

/** The name `listCounters` gives a stored counter of a job. */
export function counterName(row: { activity: string; dimension: string; field: string }): string {
  return row.activity === '' ? row.field : `${row.activity}/${row.dimension}/${row.field}`;
}
