/**
 * What the compiler needs to know about one activity kind: its document shape, which of
 * its fields hold expressions and durations, how it compiles, which outcomes it can have
 * and any graph rule of its own. Each kind's module in `engine/kinds/` declares this
 * beside its planner; the compiler is built over the table of kinds
 * ({@link ./compiler.ts}), so adding a kind touches no file of this layer.
 */
import type { z } from 'zod';
import type { CompiledActivityBase, TransitionOn } from './compiled-workflow.js';
import type { Draft, DraftActivity } from './draft.js';
import type { ProblemList } from './problem-list.js';

/** The zod shape of one kind's activity document: a strict object with a `kind` literal. */
export type ActivityShape = z.ZodObject<{ kind: z.ZodLiteral<string> } & z.ZodRawShape>;

/** What a kind's own graph rules can ask about the workflow being compiled. */
export interface GraphFacts {
  draft: Draft;
  /** The single trigger, when there is exactly one. */
  trigger?: string;
  /** Every activity reachable from `from` over transitions, `from` included. */
  reach(from: string): ReadonlySet<string>;
}

/** The compile-time half of an activity kind. */
export interface KindSpec<
  Shape extends ActivityShape = ActivityShape,
  Compiled extends CompiledActivityBase = CompiledActivityBase,
> {
  /** The `kind:` value. */
  kind: z.infer<Shape>['kind'];
  /** The activity document's shape (fields, types, descriptions for the JSON Schema). */
  document: Shape;
  /** Fields holding JSONata expressions over the job's data (parsed and checked). */
  expressions?: readonly string[];
  /**
   * Expression fields evaluated inside the activity (a scope's `output`): they see its
   * own members by short id, as its members' expressions do.
   */
  innerExpressions?: readonly string[];
  /**
   * Fields naming another activity of the same scope (a cycle's `ancestor`): inside a
   * scope the compiler qualifies them, and refuses one that names no sibling.
   */
  references?: readonly string[];
  /** Field names, at any depth of the activity, holding durations (range-checked). */
  durations?: readonly string[];
  /**
   * The compiled activity from a document the shape accepted; `base` holds id, kind,
   * position, join and line.
   */
  compile(document: z.output<Shape>, base: CompiledActivityBase): Compiled;
  /**
   * Why a transition on `on` from such an activity can never fire, or undefined when it
   * can. Without it, `success` and `error` can fire and `timeout` cannot.
   */
  outcomeProblem?(on: TransitionOn, activity: DraftActivity): string | undefined;
  /** The kind's own rules over a leniently read activity, each broken one a problem. */
  check?(activity: DraftActivity, facts: GraphFacts, problems: ProblemList): void;
}

/** The outcome rule of a kind without {@link KindSpec.outcomeProblem}. */
export function defaultOutcomeProblem(
  on: TransitionOn,
  activity: DraftActivity,
): string | undefined {
  return on === 'timeout'
    ? `on: timeout from a ${activity.kind} activity, which has no timeout`
    : undefined;
}

/** The outcome rule of a kind that never fails: only `success` fires. */
export function neverFails(on: TransitionOn, activity: DraftActivity): string | undefined {
  return on === 'error'
    ? `on: error from a ${activity.kind} activity, which never fails`
    : defaultOutcomeProblem(on, activity);
}

/** The outcome rule of a kind with a `timeout:` field: `on: timeout` needs one set. */
export function timesOutWhenSet(on: TransitionOn, activity: DraftActivity): string | undefined {
  return on === 'timeout' && activity.fields.timeout === undefined
    ? `on: timeout from ${JSON.stringify(activity.id)}, which sets no timeout`
    : undefined;
}
