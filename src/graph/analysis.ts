/**
 * Pure questions about a compiled workflow's graph, for the engine: who follows whom (by
 * outcome), what is reachable or upstream, and which activities a `cycle` re-enters. The
 * per-workflow indexes are built once and kept in a WeakMap keyed by the compiled object,
 * which must therefore not be mutated. The join and skip rules are in
 * {@link ./skip-closure.ts}, re-exported here.
 */
import type { CompiledTransition, CompiledWorkflow, TransitionOn } from './compiled-workflow.js';

export {
  type ActivityDigits,
  digitsOf,
  type JoinState,
  type JoinStatus,
  joinStatus,
  skipClosure,
} from './skip-closure.js';

interface GraphIndex {
  outgoing: Map<string, CompiledTransition[]>;
  incoming: Map<string, CompiledTransition[]>;
  bodies: Map<string, string[]>;
  /** Activity id → the cycles whose body holds it; built on first use. */
  around?: Map<string, string[]>;
}

const indexes = new WeakMap<CompiledWorkflow, GraphIndex>();

function indexOf(wf: CompiledWorkflow): GraphIndex {
  let index = indexes.get(wf);
  if (index) return index;
  index = { outgoing: new Map(), incoming: new Map(), bodies: new Map() };
  for (const id of wf.order) {
    index.outgoing.set(id, []);
    index.incoming.set(id, []);
  }
  for (const t of wf.transitions) {
    index.outgoing.get(t.from)?.push(t);
    index.incoming.get(t.to)?.push(t);
  }
  indexes.set(wf, index);
  return index;
}

/** The transitions leaving `id`, in file order; only those for outcome `on` when given. */
export function outgoing(
  wf: CompiledWorkflow,
  id: string,
  on?: TransitionOn,
): CompiledTransition[] {
  const all = indexOf(wf).outgoing.get(id) ?? [];
  return on === undefined ? [...all] : all.filter((t) => t.on === on);
}

/** The transitions entering `id`, in file order; only those for outcome `on` when given. */
export function incoming(
  wf: CompiledWorkflow,
  id: string,
  on?: TransitionOn,
): CompiledTransition[] {
  const all = indexOf(wf).incoming.get(id) ?? [];
  return on === undefined ? [...all] : all.filter((t) => t.on === on);
}

function distinct(ids: string[]): string[] {
  return [...new Set(ids)];
}

/** The activities `id` has transitions to (for outcome `on`, when given), each once. */
export function successors(wf: CompiledWorkflow, id: string, on?: TransitionOn): string[] {
  return distinct(outgoing(wf, id, on).map((t) => t.to));
}

/** The activities with transitions to `id` (for outcome `on`, when given), each once. */
export function predecessors(wf: CompiledWorkflow, id: string, on?: TransitionOn): string[] {
  return distinct(incoming(wf, id, on).map((t) => t.from));
}

function walk(
  start: Iterable<string>,
  next: (id: string) => CompiledTransition[],
  end: 'to' | 'from',
): Set<string> {
  const seen = new Set<string>(start);
  const stack = [...seen];
  for (let id = stack.pop(); id !== undefined; id = stack.pop()) {
    for (const t of next(id)) {
      const other = t[end];
      if (!seen.has(other)) {
        seen.add(other);
        stack.push(other);
      }
    }
  }
  return seen;
}

/**
 * Every activity reachable from `ids` along transitions of any outcome, `ids` included.
 * (The implicit re-entry of a cycle leads back upstream, so it adds nothing.)
 */
export function reachableFrom(wf: CompiledWorkflow, ids: string | Iterable<string>): Set<string> {
  const { outgoing: out } = indexOf(wf);
  return walk(typeof ids === 'string' ? [ids] : ids, (id) => out.get(id) ?? [], 'to');
}

/** Every activity with a path to `id` along transitions of any outcome, `id` excluded. */
export function upstreamOf(wf: CompiledWorkflow, id: string): Set<string> {
  const { incoming: into } = indexOf(wf);
  const found = walk([id], (at) => into.get(at) ?? [], 'from');
  found.delete(id);
  return found;
}

/**
 * What a `cycle` activity re-enters on each iteration: every activity downstream of its
 * ancestor and upstream of the cycle activity, both included, in collation order. The
 * engine moves these back to pending (9) before it re-enters the ancestor.
 */
export function cycleBody(wf: CompiledWorkflow, cycleId: string): string[] {
  const index = indexOf(wf);
  const cached = index.bodies.get(cycleId);
  if (cached) return [...cached];
  const ancestor = wf.activities[cycleId]?.ancestor;
  if (wf.activities[cycleId]?.kind !== 'cycle' || ancestor === undefined) return [];
  const down = reachableFrom(wf, ancestor);
  const up = upstreamOf(wf, cycleId);
  up.add(cycleId);
  const body = wf.order.filter((id) => down.has(id) && up.has(id));
  index.bodies.set(cycleId, body);
  return [...body];
}

/**
 * The targets outside a cycle's body of transitions from inside it, in collation order:
 * where the flow goes when the loop ends. Their skip is decided only once the cycle can no
 * longer re-enter (see {@link skipClosure}).
 */
export function cycleExits(wf: CompiledWorkflow, cycleId: string): string[] {
  const body = new Set(cycleBody(wf, cycleId));
  const exits = new Set<string>();
  for (const id of body) for (const t of outgoing(wf, id)) if (!body.has(t.to)) exits.add(t.to);
  return wf.order.filter((id) => exits.has(id));
}

/** The cycle activities whose body holds `id`. */
export function cyclesAround(wf: CompiledWorkflow, id: string): string[] {
  const index = indexOf(wf);
  if (!index.around) {
    const around = new Map<string, string[]>();
    for (const c of wf.order) {
      if (wf.activities[c]?.kind !== 'cycle') continue;
      for (const member of cycleBody(wf, c)) around.set(member, [...(around.get(member) ?? []), c]);
    }
    index.around = around;
  }
  return [...(index.around.get(id) ?? [])];
}
