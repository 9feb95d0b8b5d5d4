/**
 * Retention: how long a finished job is kept, by the state it ended in. A policy gives
 * each final flow state a duration in ms (the job is pruned that long after it ended),
 * `null` (kept forever), or nothing (the worker's default applies). Pure: the store
 * applies it (`pruneJobs`), the worker decides when (`worker/retention-sweep.ts`).
 */
import type { FlowState } from './states.js';

/** The final flow states, by the name a workflow file or a `--state` gives them. */
export const RETENTION_STATES = {
  succeeded: 'SUCCESS',
  failed: 'FAILURE',
  reverted: 'REVERTED',
} as const satisfies Record<string, FlowState>;

/** A final state's name in a file or on the command line: `succeeded`, `failed`, `reverted`. */
export type RetentionStateName = keyof typeof RETENTION_STATES;

/** A final flow state. */
export type FinalState = (typeof RETENTION_STATES)[RetentionStateName];

/** Every final state, in a fixed order. */
export const FINAL_STATES: readonly FinalState[] = Object.values(RETENTION_STATES);

/**
 * How long the jobs of a workflow (or, as a default, of every workflow) are kept after
 * they end, per final state: ms, `null` for forever, absent for "the default decides".
 */
export type RetentionPolicy = Partial<Record<FinalState, number | null>>;

/** A policy that keeps every finished job forever (what applies when nothing is configured). */
export const KEEP_FOREVER: RetentionPolicy = {};

/** The final state `name` stands for (`succeeded`, or `SUCCESS` itself); undefined when none. */
export function finalStateOf(name: string): FinalState | undefined {
  const lower = name.trim().toLowerCase();
  if (lower in RETENTION_STATES) return RETENTION_STATES[lower as RetentionStateName];
  const upper = name.trim().toUpperCase();
  return (FINAL_STATES as readonly string[]).includes(upper) ? (upper as FinalState) : undefined;
}

/** The same policy for every final state. */
export function uniformPolicy(ms: number | null): RetentionPolicy {
  return Object.fromEntries(FINAL_STATES.map((s) => [s, ms])) as RetentionPolicy;
}

/** The shortest duration a policy gives (undefined when it keeps everything). */
export function shortestRetention(policy: RetentionPolicy): number | undefined {
  const all = Object.values(policy).filter((v): v is number => typeof v === 'number');
  return all.length > 0 ? Math.min(...all) : undefined;
}

/** A policy as a workflow file would write it: `7d`, or `{ succeeded: 7d, failed: forever }`. */
export function describeRetention(policy: RetentionPolicy): string {
  const text = (v: number | null | undefined) =>
    v === undefined ? 'default' : v === null ? 'forever' : formatMs(v);
  const values = FINAL_STATES.map((s) => text(policy[s]));
  if (values.every((v) => v === values[0])) return values[0] as string;
  return Object.entries(RETENTION_STATES)
    .filter(([, state]) => policy[state] !== undefined)
    .map(([name, state]) => `${name}: ${text(policy[state])}`)
    .join(', ');
}

/** `90000` as `90s`, `86400000` as `1d`: the largest unit that divides it. */
function formatMs(ms: number): string {
  for (const [unit, size] of [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1_000],
  ] as const) {
    if (ms >= size && ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${ms}ms`;
}
