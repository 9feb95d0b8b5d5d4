/**
 * Starting a graph job: the job row, its collation key with every activity pending, and
 * the trigger's `enter` message, in one transaction. Idempotent by job id: starting an id
 * that exists returns that job and enqueues nothing.
 */
import { initialCollationKey } from '../core/collation.js';
import type { JobRecord, Json } from '../store/records.js';
import type { StoreTx } from '../store/store.js';
import type { LoadedWorkflow } from './loaded-workflow.js';
import { ENGINE_STREAM } from './messages.js';
import { COLLATION_FIELD } from './step.js';

/** Where a child job reports back to. */
export interface ParentLink {
  job: string;
  activity: string;
  dimension: string;
}

/** What to start. */
export interface GraphJobStart {
  id: string;
  wf: LoadedWorkflow;
  input: Json;
  parent?: ParentLink;
  now: number;
}

/** Creates a graph job and enqueues its trigger, unless the id exists already. */
export async function startGraphJob(
  tx: StoreTx,
  start: GraphJobStart,
): Promise<{ job: JobRecord; created: boolean }> {
  const { compiled } = start.wf;
  const result = await tx.createJob({
    id: start.id,
    workflow: compiled.workflow,
    version: compiled.version,
    model: 'graph',
    state: 'RUNNING',
    input: start.input,
    context: start.parent ? { parent: { ...start.parent } } : null,
    parentId: start.parent?.job ?? null,
    parentActivity: start.parent?.activity ?? null,
    createdAt: start.now,
  });
  if (!result.created) return result;
  await tx.addCounter(
    { job: start.id, field: COLLATION_FIELD },
    0n,
    initialCollationKey(start.wf.layout),
  );
  await tx.append([
    {
      stream: ENGINE_STREAM,
      job: start.id,
      payload: { k: 'enter', job: start.id, a: compiled.trigger, d: '' },
    },
  ]);
  return result;
}
