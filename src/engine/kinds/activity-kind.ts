/**
 * An activity kind, whole, in one module: what the compiler needs (document shape,
 * expression and duration fields, compile, outcomes, its own graph rules — a
 * {@link KindSpec}) and what the engine runs (Leg1's `enter`, and a responder per Leg2
 * message it can receive). The table of every kind is `./index.ts`; nothing else in weft
 * names a kind's fields, so adding a kind is one module plus its line in the table.
 */
import type { CompiledActivityBase } from '../../graph/compiled-workflow.js';
import type { ActivityShape, KindSpec } from '../../graph/kind-spec.js';
import type { ActivityAddress, EngineMessage } from '../messages.js';
import type { Step } from '../step.js';

/** The engine messages that are some activity's Leg2 input (all but `enter`). */
export type Leg2Message = Exclude<EngineMessage, { k: 'enter' }>;

/** Leg2 responders by message kind; each returns false when Leg2 was already closed. */
export type Responders<Compiled> = {
  [K in Leg2Message['k']]?: (
    step: Step,
    message: Extract<Leg2Message, { k: K }>,
    activity: Compiled,
  ) => Promise<boolean>;
};

/** One activity kind: its compile-time spec and its planners. */
export interface ActivityKind<
  Shape extends ActivityShape = ActivityShape,
  Compiled extends CompiledActivityBase = CompiledActivityBase,
> extends KindSpec<Shape, Compiled> {
  /** Leg1: plans the activity's start, run once per activity and dimension. */
  enter(step: Step, address: ActivityAddress, activity: Compiled): Promise<void>;
  /** Leg2: the messages this kind answers. */
  respond?: Responders<Compiled>;
}

/** Declares a kind (an identity function that keeps its types). */
export function defineKind<Shape extends ActivityShape, Compiled extends CompiledActivityBase>(
  kind: ActivityKind<Shape, Compiled>,
): ActivityKind<Shape, Compiled> {
  return kind;
}
