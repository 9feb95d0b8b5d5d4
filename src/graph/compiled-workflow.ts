/**
 * The compiled form of a graph workflow: what the compiler produces from a YAML/JSON
 * file or the builder, what the store keeps per version, and what the engine runs.
 * It is plain JSON (expressions stay as JSONata source text and are parsed once per
 * process), so it can be stored and read back unchanged.
 *
 * This layer knows what every activity has in common; what each kind adds (a task's
 * handler and retry policy, a hook's signal…) is declared by the kind's own module in
 * `engine/kinds/`, and the engine's compiler returns this graph over the union of those
 * kinds (`CompiledWorkflow<CompiledActivity>`).
 */

import type { CheckedQueue } from '../core/queue-rules.js';
import type { RetentionPolicy } from '../core/retention.js';
import type { CheckedSchedule } from '../core/schedule-rules.js';

/** What every compiled activity has, whatever its kind. */
export interface CompiledActivityBase {
  id: string;
  /** Its kind: the name of the kind module that runs it. */
  kind: string;
  /** Its digit in the collation key: its index in the ascending sort of all ids. */
  position: number;
  /** How it waits for several incoming transitions: all of them (default) or the first. */
  join: 'all' | 'any';
  /**
   * The upstream activity it re-enters (a `cycle`): an edge of the graph that is not a
   * transition, which reachability and the skip rules follow.
   */
  ancestor?: string;
  /** Line in the source file, when it came from one. */
  line?: number;
  /**
   * The qualified id of the scope it is inside, when it is an inner activity (its own id
   * is then qualified too: `<scope>.<inner>`).
   */
  scope?: string;
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

/** A compiled graph workflow over activities of type `A`. */
export interface CompiledWorkflow<A extends CompiledActivityBase = CompiledActivityBase> {
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
  activities: Record<string, A>;
  /** Activity ids in ascending code-unit order: index = collation digit position. */
  order: string[];
  /** The id of the single trigger. */
  trigger: string;
  /** All transitions, in file order. */
  transitions: CompiledTransition[];
  /** JSONata producing the job output from the activities' outputs. */
  output?: string;
  /**
   * The activity that finishes the job (crossflow's terminate): the job ends when it
   * ends, and a disposal after which it can no longer be reached ends the job with an
   * UnreachableError. Absent, the job ends when nothing is active.
   */
  end?: string;
  /**
   * `revert` (the file's `on_failure: revert`): a job that would end FAILURE first runs
   * the revert handler of every finished activity that has one, newest first, and ends
   * REVERTED (or FAILURE when a revert failed). Absent: it ends FAILURE at once.
   */
  onFailure?: 'revert';
  /**
   * The file's `timeout:` in ms: how long a job may take from its start to its end. A job
   * still running then ends in FAILURE with a JobTimeoutError, its started and paused
   * activities on 7, and its child jobs end with it. Absent: no limit.
   */
  timeoutMs?: number;
  /**
   * The file's `schedules:`, checked, each naming this workflow: a deploy stores them
   * (they are not part of the definition's content: changing one stores no new version).
   */
  schedules?: CheckedSchedule[];
  /** The file's `queue:`: where its jobs wait for a slot, unless a start names a queue. */
  queue?: WorkflowQueue;
  /**
   * The queue's limits, when the file's `queue:` gives any: a deploy declares the queue
   * with them (not part of the definition's content: changing one stores no new version).
   */
  queueDeclaration?: CheckedQueue;
  /**
   * The file's `retention:`: how long its finished jobs are kept, per end state. A deploy
   * stores it with the store's retention policies (not part of the definition's content:
   * changing it stores no new version).
   */
  retention?: RetentionPolicy;
  /** Where it came from (a file path), for messages. */
  source?: string;
}

/** A workflow's queue (the file's `queue:`). */
export interface WorkflowQueue {
  name: string;
  /** JSONata over `{ input }`: a job's key for the queue's per-key limits. */
  key?: string;
  /** Its jobs' priority (default 0). */
  priority?: number;
}
