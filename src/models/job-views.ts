/**
 * A job's view by its model, with no engine loaded: a graph job's reads its stored
 * workflow version (a `WorkflowCache`), a code-first job's its stored instance. What
 * only reads jobs (`Client.status`, `weft status`, `weft list`) builds views with it;
 * `Models` gives the same views through the engines a worker or server holds.
 */
import { NotFoundError } from '../core/errors.js';
import { WorkflowCache } from '../engine/loaded-workflow.js';
import type { JobRecord } from '../store/records.js';
import type { StoreTx } from '../store/store.js';
import { durableView } from './durable-view.js';
import { graphView } from './graph-view.js';
import type { ModelView, ViewContext } from './model-runtime.js';

/** What builds a job's part of its view: a model's runtime, or {@link JobViews}. */
export interface ModelViewer {
  view(tx: StoreTx, job: JobRecord, context: ViewContext): Promise<ModelView>;
}

/** Picks the viewer of a job by its model (`Models` is one). */
export interface JobViewSource {
  ofJob(job: Pick<JobRecord, 'model'>): ModelViewer;
}

/** Views of graph and code-first jobs, over the stored definitions alone. */
export class JobViews implements JobViewSource {
  private readonly table: Readonly<Record<JobRecord['model'], ModelViewer>>;

  constructor() {
    const cache = new WorkflowCache();
    const workflows = { workflow: cache.get.bind(cache) };
    this.table = {
      graph: { view: (tx, job, context) => graphView(tx, workflows, job, context) },
      durable: { view: durableView },
    };
  }

  /** The viewer of a job; `NotFoundError` for a model this version does not know. */
  ofJob(job: Pick<JobRecord, 'model'>): ModelViewer {
    const viewer = Object.hasOwn(this.table, job.model) ? this.table[job.model] : undefined;
    if (!viewer) throw new NotFoundError('job model', job.model);
    return viewer;
  }
}
