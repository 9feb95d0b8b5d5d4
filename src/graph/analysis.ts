/**
 * The one source of graph semantics: who follows whom, what is reachable, the order
 * activities are shown in, and which activities a `cycle` re-entry puts back to pending.
 * The compiler checks a draft with {@link reachable}; the engine indexes a compiled
 * workflow with {@link graphIndex}, orders it with {@link graphOrder} and resets what
 * {@link reentered} names. The join rule is in {@link ./join-rule.ts}.
 *
 * The per-workflow index is built once and kept in a WeakMap keyed by the compiled
 * object, which must therefore not be mutated.
 */
import type { CompiledTransition, CompiledWorkflow } from './compiled-workflow.js';

/**
 * Every id reachable from `start` by `next`, `start` included, in breadth-first order
 * (the order of the returned set).
 */
export function reachable(
  start: string | Iterable<string>,
  next: (id: string) => Iterable<string>,
): Set<string> {
  const seen = new Set<string>(typeof start === 'string' ? [start] : start);
  const queue = [...seen];
  for (let i = 0; i < queue.length; i++) {
    for (const to of next(queue[i] as string)) {
      if (!seen.has(to)) {
        seen.add(to);
        queue.push(to);
      }
    }
  }
  return seen;
}

/** A compiled workflow's transitions by source and by target, each list in file order. */
export interface GraphIndex {
  outgoing: ReadonlyMap<string, readonly CompiledTransition[]>;
  incoming: ReadonlyMap<string, readonly CompiledTransition[]>;
}

const indexes = new WeakMap<CompiledWorkflow, GraphIndex>();

/** The transitions of `wf` indexed by source and by target (built once per workflow). */
export function graphIndex(wf: CompiledWorkflow): GraphIndex {
  const cached = indexes.get(wf);
  if (cached) return cached;
  const outgoing = new Map<string, CompiledTransition[]>();
  const incoming = new Map<string, CompiledTransition[]>();
  for (const id of wf.order) {
    outgoing.set(id, []);
    incoming.set(id, []);
  }
  for (const t of wf.transitions) {
    outgoing.get(t.from)?.push(t);
    incoming.get(t.to)?.push(t);
  }
  const index = { outgoing, incoming };
  indexes.set(wf, index);
  return index;
}

/**
 * Every activity reachable from `ids` along transitions of any outcome, `ids` included,
 * breadth first. (The implicit re-entry of a cycle leads back upstream, so it adds
 * nothing.)
 */
export function reachableFrom(wf: CompiledWorkflow, ids: string | Iterable<string>): Set<string> {
  const { outgoing } = graphIndex(wf);
  return reachable(ids, (id) => (outgoing.get(id) ?? []).map((t) => t.to));
}

/**
 * Activity ids in graph order: breadth first from the trigger, then any the trigger does
 * not reach (a compiled workflow has none) in collation order. Tables list them so.
 */
export function graphOrder(wf: CompiledWorkflow): string[] {
  const order = [...reachableFrom(wf, wf.trigger)];
  const listed = new Set(order);
  for (const id of wf.order) if (!listed.has(id)) order.push(id);
  return order;
}

/**
 * What a re-entry of the cycle activity `cycleId` puts back to pending (those of them
 * that finished): every activity downstream of its ancestor, the ancestor and the cycle
 * included — the loop's body, the exits an iteration skipped and everything after them —
 * in collation order. The next iteration runs in a new dimensional thread and decides
 * all of them afresh, so an exit one iteration did not take can be taken by a later one.
 * Empty when `cycleId` is not a cycle.
 */
export function reentered(wf: CompiledWorkflow, cycleId: string): string[] {
  const activity = wf.activities[cycleId];
  if (activity?.ancestor === undefined) return [];
  const downstream = reachableFrom(wf, activity.ancestor);
  // A scope downstream is re-run whole: its members (at any depth) go back to pending too.
  const within = (id: string): boolean => {
    for (let s: string | undefined = id; s !== undefined; s = wf.activities[s]?.scope) {
      if (downstream.has(s)) return true;
    }
    return false;
  };
  return wf.order.filter(within);
}

/**
 * The activities that can still lead to `target` in a graph given by `previous` (each
 * id's predecessors): every activity from which a path reaches it without passing through
 * `target` itself — an activity in a cycle with `target` is upstream of it; `target`
 * prunes itself from the search, as crossflow's collect does. With `inside`, only the
 * activities it accepts count (a collect in a scope watches only the scope).
 */
export function upstreamIn(
  target: string,
  previous: (id: string) => Iterable<string>,
  inside: (id: string) => boolean = () => true,
): Set<string> {
  const seen = reachable(target, (id) =>
    id === target || inside(id) ? [...previous(id)].filter(inside) : [],
  );
  seen.delete(target);
  return seen;
}

/**
 * The predecessors of each activity of a compiled workflow for reachability: its
 * transitions' sources, a scope for its entries (its start enters them), and a cycle for
 * its ancestor (its re-entry). Built once per workflow (the compiled object must not be
 * mutated).
 */
const predecessorMaps = new WeakMap<CompiledWorkflow, Map<string, string[]>>();

function predecessors(wf: CompiledWorkflow): Map<string, string[]> {
  const cached = predecessorMaps.get(wf);
  if (cached) return cached;
  const previous = new Map<string, string[]>();
  predecessorMaps.set(wf, previous);
  const link = (from: string, to: string) => {
    const list = previous.get(to) ?? [];
    list.push(from);
    previous.set(to, list);
  };
  for (const t of wf.transitions) link(t.from, t.to);
  for (const id of wf.order) {
    const activity = wf.activities[id] as
      | (CompiledWorkflow['activities'][string] & { entries?: string[] })
      | undefined;
    if (activity?.ancestor !== undefined) link(id, activity.ancestor);
    for (const entry of activity?.entries ?? []) link(id, entry);
  }
  return previous;
}

/**
 * What can still lead to `target` in a compiled workflow ({@link upstreamIn} over its
 * transitions, scope entries and cycle re-entries); for a target inside a scope, only that
 * scope's own activities at any depth. Computed once per workflow version, so the
 * run-time question "can anything still reach it?" is a lookup of these ids' digits.
 */
export function upstreamOf(wf: CompiledWorkflow, target: string): string[] {
  const previous = predecessors(wf);
  const scope = wf.activities[target]?.scope;
  const inside = (id: string): boolean => {
    if (scope === undefined) return true;
    for (let s = wf.activities[id]?.scope; s !== undefined; s = wf.activities[s]?.scope) {
      if (s === scope) return true;
    }
    return false;
  };
  const seen = upstreamIn(target, (id) => previous.get(id) ?? [], inside);
  return wf.order.filter((id) => seen.has(id));
}

/**
 * The activities that run in the threads an activity opens (a spread's items, a
 * collect's batches): everything its transitions lead to, up to and not including the
 * next activity `isBoundary` accepts (a collect), in breadth-first order.
 */
export function threadRegion(
  opener: string,
  next: (id: string) => Iterable<string>,
  isBoundary: (id: string) => boolean,
): string[] {
  const seen = reachable(opener, (id) =>
    id !== opener && isBoundary(id) ? [] : [...next(id)].filter((to) => to !== opener),
  );
  seen.delete(opener);
  return [...seen].filter((id) => !isBoundary(id));
}
