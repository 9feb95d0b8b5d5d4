/**
 * The compiled form of a graph workflow: what the compiler produces from a YAML/JSON
 * file or the builder, what the store keeps per version, and what the engine runs.
 * It is plain JSON (expressions stay as JSONata source text and are parsed once per
 * process), so it can be stored and read back unchanged.
 */

/** The kinds of activity a graph can hold. */
export const ACTIVITY_KINDS = ['trigger', 'task', 'hook', 'sleep', 'await', 'cycle'] as const;
/** An activity kind. */
export type ActivityKind = (typeof ACTIVITY_KINDS)[number];

/** Retry policy of a task activity, durations in ms. */
export interface RetryPolicy {
  /** Total attempts, the first included (1 = no retry). */
  attempts: number;
  /** Delay before the second attempt. */
  backoffMs: number;
  /** Each further delay is the previous one times this (default 2). */
  factor: number;
  /** Delays never exceed this. */
  maxDelayMs: number;
}

/** One activity, compiled. */
export interface CompiledActivity {
  id: string;
  kind: ActivityKind;
  /** Its digit in the collation key: its index in the ascending sort of all ids. */
  position: number;
  /** How it waits for several incoming transitions: all of them (default) or the first. */
  join: 'all' | 'any';
  /** JSONata producing this activity's input (task, await); absent = the job input. */
  input?: string;
  /** task: the handler name. */
  task?: string;
  /** task: retry policy (attempts 1 when absent). */
  retry?: RetryPolicy;
  /** task: per-attempt timeout; hook: how long to wait for the signal. */
  timeoutMs?: number;
  /** hook: the signal name. */
  signal?: string;
  /** sleep: how long. */
  durationMs?: number;
  /** await: the child workflow id. */
  workflow?: string;
  /** await: false = start the child and go on without waiting (default true). */
  await?: boolean;
  /** cycle: the upstream activity it re-enters. */
  ancestor?: string;
  /** cycle: the most re-entries (default 100). */
  max?: number;
  /** Line in the source file, when it came from one. */
  line?: number;
}

/** What a transition listens for. */
export type TransitionOn = 'success' | 'error' | 'timeout';

/** One transition, compiled. */
export interface CompiledTransition {
  from: string;
  to: string;
  /** Which outcome of `from` fires it (default success). */
  on: TransitionOn;
  /** JSONata condition; the transition fires only when it is truthy. */
  when?: string;
}

/** A compiled graph workflow. */
export interface CompiledWorkflow {
  workflow: string;
  /** The version: the one the definition names, else 1 until a deploy numbers it. */
  version: number;
  /**
   * Set when the definition names its version (`version:` in the file, `.version(n)` in
   * the builder): a deploy stores exactly that version. Absent, a deploy stores a changed
   * definition as the next version after the newest one stored.
   */
  pinnedVersion?: true;
  /** JSON Schema for the job input, when given. */
  inputSchema?: Record<string, unknown>;
  /** Activities by id. */
  activities: Record<string, CompiledActivity>;
  /** Activity ids in ascending code-unit order: index = collation digit position. */
  order: string[];
  /** The id of the single trigger. */
  trigger: string;
  /** All transitions, in file order. */
  transitions: CompiledTransition[];
  /** JSONata producing the job output from the activities' outputs. */
  output?: string;
  /** Where it came from (a file path), for messages. */
  source?: string;
}
