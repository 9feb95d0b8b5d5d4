/**
 * A compiled workflow made ready to run: transitions indexed by source and target, the
 * set each cycle re-enters, the collation width. Built once per (workflow, version) per
 * process and cached by {@link WorkflowCache}.
 */
import { type CollationLayout, createCollationLayout } from '../core/collation.js';
import { NotFoundError, ValidationError } from '../core/errors.js';
import type { CompiledTransition } from '../graph/compiled-workflow.js';
import type { StoreTx } from '../store/store.js';
import type { CompiledWorkflow } from './kinds/index.js';

/** A compiled workflow plus the indexes the engine needs. */
export interface LoadedWorkflow {
  compiled: CompiledWorkflow;
  /** Digit positions and width of the collation key. */
  layout: CollationLayout;
  outgoing: ReadonlyMap<string, readonly CompiledTransition[]>;
  incoming: ReadonlyMap<string, readonly CompiledTransition[]>;
  /** Activity ids in graph order (breadth-first from the trigger), for tables. */
  graphOrder: readonly string[];
  /** For each cycle activity, the activities a re-entry resets to pending. */
  reentered: ReadonlyMap<string, readonly string[]>;
}

function reachableFrom(
  start: string,
  outgoing: ReadonlyMap<string, readonly CompiledTransition[]>,
) {
  const seen = new Set<string>([start]);
  const queue = [start];
  for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
    for (const t of outgoing.get(id) ?? []) {
      if (!seen.has(t.to)) {
        seen.add(t.to);
        queue.push(t.to);
      }
    }
  }
  return seen;
}

/** Indexes a compiled workflow for the engine. */
export function loadWorkflow(compiled: CompiledWorkflow): LoadedWorkflow {
  const outgoing = new Map<string, CompiledTransition[]>();
  const incoming = new Map<string, CompiledTransition[]>();
  for (const id of compiled.order) {
    outgoing.set(id, []);
    incoming.set(id, []);
  }
  for (const t of compiled.transitions) {
    outgoing.get(t.from)?.push(t);
    incoming.get(t.to)?.push(t);
  }
  const reentered = new Map<string, string[]>();
  for (const activity of Object.values(compiled.activities)) {
    if (activity.kind === 'cycle' && activity.ancestor) {
      // Everything downstream of the ancestor can run again in the next iteration.
      reentered.set(activity.id, [...reachableFrom(activity.ancestor, outgoing)]);
    }
  }
  const graphOrder = [...reachableFrom(compiled.trigger, outgoing)];
  for (const id of compiled.order) if (!graphOrder.includes(id)) graphOrder.push(id);
  return {
    compiled,
    graphOrder,
    layout: createCollationLayout(compiled.order),
    outgoing,
    incoming,
    reentered,
  };
}

/** Loads stored definitions once per process, by workflow and version. */
export class WorkflowCache {
  private readonly byKey = new Map<string, LoadedWorkflow>();

  /** The loaded workflow for a job's (workflow, version), read from the store once. */
  async get(tx: StoreTx, workflow: string, version: number): Promise<LoadedWorkflow> {
    const key = `${workflow}@${version}`;
    const hit = this.byKey.get(key);
    if (hit) return hit;
    const record = await tx.getDefinition(workflow, version);
    if (!record) throw new NotFoundError('workflow', key);
    if (record.model !== 'graph') {
      throw new ValidationError(`workflow ${key} is not a graph workflow`, key);
    }
    const loaded = loadWorkflow(record.definition as unknown as CompiledWorkflow);
    this.byKey.set(key, loaded);
    return loaded;
  }
}
