/**
 * A compiled workflow made ready to run: transitions indexed by source and target, the
 * set each cycle re-enters, the collation width. Built once per (workflow, version) per
 * process and cached by {@link WorkflowCache}.
 */
import {
  type CollationLayout,
  createCollationLayout,
  formatCollationKey,
} from '../core/collation.js';
import { NotFoundError, ValidationError } from '../core/errors.js';
import { renderScopedKey } from '../core/scoped-key.js';
import { graphIndex, graphOrder, reentered, threadRegion, upstreamOf } from '../graph/analysis.js';
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
  /** For each cycle activity, the activities a re-entry resets to pending (see `reentered`). */
  reentered: ReadonlyMap<string, readonly string[]>;
  /**
   * What can still lead to each collect (see `upstreamOf`): the ids whose digits answer
   * "can anything still reach it?".
   */
  upstream: ReadonlyMap<string, readonly string[]>;
  /**
   * The activities each spread (and each collect with `max`) runs in its threads, by the
   * activity that opens them (see `thread-region.ts`).
   */
  regions: ReadonlyMap<string, readonly string[]>;
  /** For each activity that runs in many threads, the activity that opens them. */
  threadSource: ReadonlyMap<string, string>;
  /** For each activity, the collects it is upstream of (they check when it ends). */
  watchers: ReadonlyMap<string, readonly string[]>;
  /** The enclosing scope of each inner activity, by qualified id. */
  scopeOf: ReadonlyMap<string, string>;
  /**
   * The key as status and history print it: the flat key, or with scopes the
   * compositional rendering (each scope's members between 1 and 2 after its digit).
   */
  renderKey(key: bigint): string;
}

/** Indexes a compiled workflow for the engine, with the graph's own analysis. */
export function loadWorkflow(compiled: CompiledWorkflow): LoadedWorkflow {
  const { outgoing, incoming } = graphIndex(compiled);
  const reentries = new Map<string, string[]>();
  for (const id of compiled.order) {
    if (compiled.activities[id]?.ancestor !== undefined) reentries.set(id, reentered(compiled, id));
  }
  const scopeOf = new Map<string, string>();
  for (const id of compiled.order) {
    const scope = compiled.activities[id]?.scope;
    if (scope !== undefined) scopeOf.set(id, scope);
  }
  const layout = createCollationLayout(compiled.order);
  const kindOf = (id: string) => compiled.activities[id]?.kind as string | undefined;
  const upstream = new Map<string, string[]>();
  const watchers = new Map<string, string[]>();
  const regions = new Map<string, string[]>();
  const threadSource = new Map<string, string>();
  for (const id of compiled.order) {
    const activity = compiled.activities[id] as { kind: string; max?: number };
    if (activity.kind === 'collect') {
      const ids = upstreamOf(compiled, id);
      upstream.set(id, ids);
      for (const u of ids) {
        const list = watchers.get(u);
        if (list) list.push(id);
        else watchers.set(u, [id]);
      }
    }
    if (activity.kind === 'spread' || (activity.kind === 'collect' && activity.max !== undefined)) {
      const region = threadRegion(
        id,
        (from) => (outgoing.get(from) ?? []).map((t) => t.to),
        (to) => kindOf(to) === 'collect',
      );
      regions.set(id, region);
      for (const r of region) threadSource.set(r, id);
    }
  }
  return {
    compiled,
    graphOrder: graphOrder(compiled),
    layout,
    scopeOf,
    upstream,
    regions,
    threadSource,
    watchers,
    renderKey:
      scopeOf.size === 0
        ? (key) => formatCollationKey(layout, key)
        : (key) => renderScopedKey(layout, key, scopeOf),
    outgoing,
    incoming,
    reentered: reentries,
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
