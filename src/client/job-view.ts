/**
 * The view of a job that `status`, `--json` and the HTTP API show: its state, its
 * collation key (and compositional key with its children's keys), and one row per
 * activity with its kind, state and digit.
 */
import { collationTable, formatCollationKey } from '../core/collation.js';
import { type CompositionalNode, composeKey } from '../core/compositional-key.js';
import type { FlowState } from '../core/states.js';
import type { GraphEngine } from '../engine/graph-engine.js';
import { COLLATION_FIELD } from '../engine/step.js';
import type { ErrorRecord, JobRecord, Json } from '../store/records.js';
import type { StoreTx } from '../store/store.js';

/** One activity's row. */
export interface ActivityView {
  id: string;
  kind: string;
  /** The digit's name: Pending, Started, Completed, … */
  state: string;
  digit: number;
}

/** A job as the CLI and API print it. */
export interface JobView {
  id: string;
  workflow: string;
  version: number;
  model: JobRecord['model'];
  state: FlowState;
  collation: string | null;
  compositional: string | null;
  activities: ActivityView[];
  input: Json;
  output: Json;
  error: ErrorRecord | null;
  children: JobView[];
  parent: string | null;
  createdAt: string;
  finishedAt: string | null;
  /** Code-first jobs: the instance structure (branches, executions, statuses, …). */
  instance?: Json;
}

/** Builds the view of a job and, recursively, its child jobs. */
export async function jobView(
  tx: StoreTx,
  engine: GraphEngine,
  job: JobRecord,
  depth = 0,
): Promise<{ view: JobView; node: CompositionalNode | null }> {
  const children: JobView[] = [];
  const childNodes: { activity: string | null; node: CompositionalNode }[] = [];
  if (depth < 16) {
    for (const child of await tx.listJobs({ parentId: job.id, limit: 1000 })) {
      const built = await jobView(tx, engine, child, depth + 1);
      children.push(built.view);
      if (built.node) childNodes.push({ activity: child.parentActivity, node: built.node });
    }
  }
  const base: JobView = {
    id: job.id,
    workflow: job.workflow,
    version: job.version,
    model: job.model,
    state: job.state,
    collation: null,
    compositional: null,
    activities: [],
    input: job.input,
    output: job.output,
    error: job.error,
    children,
    parent: job.parentId,
    createdAt: new Date(job.createdAt).toISOString(),
    finishedAt: job.finishedAt === null ? null : new Date(job.finishedAt).toISOString(),
  };
  if (job.model !== 'graph') return { view: { ...base, instance: job.context }, node: null };
  const wf = await engine.workflow(tx, job.workflow, job.version);
  const key = (await tx.getCounter({ job: job.id, field: COLLATION_FIELD })) ?? 0n;
  const rows = collationTable(wf.layout, key, wf.graphOrder);
  const node: CompositionalNode = {
    key: formatCollationKey(wf.layout, key),
    children: childNodes
      .filter((c) => c.activity !== null && wf.layout.positions.has(c.activity))
      .map((c) => ({
        position: wf.layout.positions.get(c.activity as string) as number,
        node: c.node,
      })),
  };
  return {
    view: {
      ...base,
      collation: formatCollationKey(wf.layout, key),
      compositional: composeKey(node),
      activities: rows.map((row) => ({
        id: row.activity,
        kind: wf.compiled.activities[row.activity]?.kind ?? 'unknown',
        state: row.state,
        digit: row.digit,
      })),
    },
    node,
  };
}
