/**
 * The join and skip rules of a graph job (seed 000, Example 2), as pure functions over the
 * current collation digits.
 *
 * An incoming transition of X is *open* while its source may still fire it: the source is
 * pending (9), started (8) or paused (5) and not skipped. It is *resolved* once the source
 * settled — completed (6), errored (7), released (4) — or was skipped (3); a resolved
 * transition either fired (X was *entered*) or was not taken. Then:
 *
 * - `join: all` runs X once no incoming transition is open and at least one fired — with
 *   the inputs that fired, like a conditional merge; `join: any` runs X at the first that
 *   fires (later ones find it started and do nothing).
 * - X is skipped (3) when no incoming transition is open and none fired. Skipping X
 *   resolves X's own outgoing transitions as not taken, so the skip spreads to everything
 *   all of whose incoming transitions come from skipped activities.
 * - Cycles: a transition from inside a cycle's body to outside it stays open while the
 *   cycle activity may still re-enter (its digit is 9, 8 or 5): a later iteration may take
 *   it. When the cycle activity is skipped the closure re-checks those exits; when it
 *   errors (max exceeded) the engine calls {@link skipClosure} with `cycleExits`.
 */

import { cycleBody, cycleExits, cyclesAround, incoming, outgoing } from './analysis.js';
import type { CompiledWorkflow } from './compiled-workflow.js';

const PENDING = 9;
const SKIPPED = 3;
/** Digits of a source that may still fire its transitions. */
const OPEN_DIGITS: ReadonlySet<number> = new Set([9, 8, 5]);

/** The current digit of each activity: a map, a record, or a lookup. Missing = pending (9). */
export type ActivityDigits =
  | ReadonlyMap<string, number>
  | Readonly<Record<string, number>>
  | ((id: string) => number | undefined);

/** What the join and skip rules read about a running job. */
export interface JoinState {
  /** The collation digits (e.g. from {@link digitsOf}). */
  digits: ActivityDigits;
  /**
   * Activities an incoming transition has already fired into — a `join: all` activity
   * waiting for its other inputs, or one already queued. Started ones need not be listed.
   */
  entered?: ReadonlySet<string> | ((id: string) => boolean);
}

/** What {@link joinStatus} decides for an activity. */
export type JoinStatus = 'wait' | 'run' | 'skip' | 'started';

/** The digits of a collation key (bigint or its decimal text), by activity id. */
export function digitsOf(wf: CompiledWorkflow, key: bigint | string): Record<string, number> {
  const text = String(key).padStart(Math.max(15, wf.order.length), '0');
  const out: Record<string, number> = {};
  wf.order.forEach((id, position) => {
    out[id] = Number(text[position] ?? PENDING);
  });
  return out;
}

function lookupDigit(digits: ActivityDigits): (id: string) => number {
  if (typeof digits === 'function') return (id) => digits(id) ?? PENDING;
  if (digits instanceof Map) return (id) => digits.get(id) ?? PENDING;
  const record = digits as Readonly<Record<string, number>>;
  return (id) => (Object.hasOwn(record, id) ? (record[id] ?? PENDING) : PENDING);
}

function lookupEntered(entered: JoinState['entered']): (id: string) => boolean {
  if (!entered) return () => false;
  if (typeof entered === 'function') return entered;
  return (id) => entered.has(id);
}

interface View {
  digit(id: string): number;
  entered(id: string): boolean;
}

function view(state: JoinState, skipped: ReadonlySet<string>): View {
  const digit = lookupDigit(state.digits);
  return {
    digit: (id) => (skipped.has(id) ? SKIPPED : digit(id)),
    entered: lookupEntered(state.entered),
  };
}

/** Whether a cycle activity may still re-enter its body. */
function mayLoop(v: View, cycleId: string): boolean {
  return OPEN_DIGITS.has(v.digit(cycleId));
}

function decide(wf: CompiledWorkflow, id: string, v: View): JoinStatus {
  const activity = wf.activities[id];
  if (!activity || id === wf.trigger) return 'started';
  if (v.digit(id) !== PENDING) return 'started';
  const entered = v.entered(id);
  let open = false;
  let deferred = false;
  for (const t of incoming(wf, id)) {
    if (OPEN_DIGITS.has(v.digit(t.from))) open = true;
    else if (
      cyclesAround(wf, t.from).some((c) => mayLoop(v, c) && !cycleBody(wf, c).includes(id))
    ) {
      deferred = true;
    }
  }
  if (activity.join === 'any') {
    if (entered) return 'run';
    return open || deferred ? 'wait' : 'skip';
  }
  if (open) return 'wait';
  if (entered) return 'run';
  return deferred ? 'wait' : 'skip';
}

/**
 * Whether a pending activity should run now, keep waiting, or be skipped, given the
 * job's digits and which activities have been entered. `started` when it is not pending
 * (or is the trigger).
 */
export function joinStatus(wf: CompiledWorkflow, id: string, state: JoinState): JoinStatus {
  return decide(wf, id, view(state, new Set()));
}

/**
 * The activities to skip after transitions into `notTaken` were not taken (or after a
 * cycle ended: pass its `cycleExits`). Each candidate is skipped when it is pending, was
 * not entered, and none of its incoming transitions is still open; a skipped activity's
 * targets become candidates in turn. Returns the ids to move to 3, in collation order —
 * possibly none. Pure: the caller applies the moves.
 */
export function skipClosure(
  wf: CompiledWorkflow,
  notTaken: string | Iterable<string>,
  state: JoinState,
): string[] {
  const skipped = new Set<string>();
  const v = view(state, skipped);
  const queue = typeof notTaken === 'string' ? [notTaken] : [...notTaken];
  for (let i = 0; i < queue.length; i++) {
    const id = queue[i]!;
    if (skipped.has(id) || decide(wf, id, v) !== 'skip') continue;
    skipped.add(id);
    for (const t of outgoing(wf, id)) queue.push(t.to);
    if (wf.activities[id]?.kind === 'cycle') queue.push(...cycleExits(wf, id));
  }
  return wf.order.filter((id) => skipped.has(id));
}
