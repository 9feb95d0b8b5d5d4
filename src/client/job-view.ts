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
import type { ActivityRecord, ErrorRecord, JobRecord, Json } from '../store/records.js';
import type { StoreTx } from '../store/store.js';

/** One activity's row. */
export interface ActivityView {
  id: string;
  kind: string;
  /** Its digit's position in the collation key, from 1 (the leftmost digit). */
  position: number;
  /** The digit's name: Pending, Started, Completed, … */
  state: string;
  digit: number;
  /** Its record's status (PENDING, RUNNING, SUCCESS, FAILURE), null before it ran. */
  status: string | null;
  /** Attempts made so far (tasks; 0 before the first). */
  attempts: number;
  /** The error it ended with (or its last failed attempt's), with its stack when known. */
  error: ErrorRecord | null;
  startedAt: string | null;
  finishedAt: string | null;
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
  // Each activity's newest record (a cycle leaves one per dimensional thread).
  const records = new Map<string, ActivityRecord>();
  for (const r of await tx.listActivities(job.id)) {
    const held = records.get(r.activity);
    if (!held || r.updatedAt >= held.updatedAt) records.set(r.activity, r);
  }
  const iso = (ms: number | null | undefined) => (ms == null ? null : new Date(ms).toISOString());
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
      activities: rows.map((row) => {
        const record = records.get(row.activity);
        return {
          id: row.activity,
          kind: wf.compiled.activities[row.activity]?.kind ?? 'unknown',
          position: (wf.layout.positions.get(row.activity) ?? 0) + 1,
          state: row.state,
          digit: row.digit,
          status: record?.status ?? null,
          attempts: record?.attempt ?? 0,
          error: record?.error ?? null,
          startedAt: iso(record?.startedAt),
          finishedAt: iso(record?.finishedAt),
        };
      }),
    },
    node,
  };
}
