/**
 * `GET /api/workflows`: every deployed workflow, each version with its graph (graph
 * workflows), the jobs of the workflow by state, and for each version how many of its
 * running jobs sit at each activity right now, by digit (read from their collation keys,
 * at most {@link SAMPLE} running jobs per workflow, newest first).
 */
import { Hono } from 'hono';
import { createCollationLayout, digitAt } from '../../core/collation.js';
import { DIGIT_LABELS } from '../../core/collation-digits.js';
import { COLLATION_FIELD } from '../../engine/collation-field.js';
import type { CompiledWorkflow } from '../../engine/kinds/index.js';
import type { DefinitionRecord, JobCounts } from '../../store/records.js';
import type { Store } from '../../store/store.js';
import { type GraphShape, graphShape } from './job-detail.js';

/** How many running jobs per workflow the per-activity counts read. */
export const SAMPLE = 2000;

/** One version of a workflow. */
export interface WorkflowVersionView {
  version: number;
  model: DefinitionRecord['model'];
  deployedAt: string;
  graph: GraphShape | null;
  /** Running jobs of this version by activity, then by digit label (`Started: 3`). */
  activities: Record<string, Record<string, number>>;
  /** Running jobs of this version (among those sampled). */
  running: number;
}

/** One workflow. */
export interface WorkflowView {
  workflow: string;
  model: DefinitionRecord['model'];
  newest: number;
  counts: JobCounts;
  versions: WorkflowVersionView[];
  /** True when there were more running jobs than were sampled. */
  sampled: boolean;
}

/** The workflow routes. */
export function workflowsRoutes(store: Store): Hono {
  const app = new Hono();
  app.get('/', async (c) => {
    const out: WorkflowView[] = [];
    const newest = (await store.listDefinitions()).sort((a, b) =>
      a.workflow < b.workflow ? -1 : 1,
    );
    for (const definition of newest) {
      const versions: WorkflowVersionView[] = [];
      const byVersion = new Map<number, WorkflowVersionView>();
      for (let v = 1; v <= definition.version; v++) {
        const record =
          v === definition.version ? definition : await store.getDefinition(definition.workflow, v);
        if (!record) continue;
        const view: WorkflowVersionView = {
          version: v,
          model: record.model,
          deployedAt: new Date(record.createdAt).toISOString(),
          graph:
            record.model === 'graph'
              ? graphShape(record.definition as unknown as CompiledWorkflow)
              : null,
          activities: {},
          running: 0,
        };
        versions.push(view);
        byVersion.set(v, view);
      }
      const running = await store.listJobs({
        workflow: definition.workflow,
        state: 'RUNNING',
        descending: true,
        limit: SAMPLE + 1,
      });
      const sample = running.slice(0, SAMPLE);
      const keys =
        definition.model === 'graph'
          ? await store.getCounters(sample.map((job) => ({ job: job.id, field: COLLATION_FIELD })))
          : [];
      sample.forEach((job, i) => {
        const view = byVersion.get(job.version);
        if (!view) return;
        view.running++;
        if (!view.graph) return;
        const key = keys[i];
        if (key === undefined) return;
        const { width } = createCollationLayout(view.graph.order);
        view.graph.order.forEach((activity, position) => {
          const label = DIGIT_LABELS[digitAt(key, width, position)];
          const counts = view.activities[activity] ?? {};
          counts[label] = (counts[label] ?? 0) + 1;
          view.activities[activity] = counts;
        });
      });
      out.push({
        workflow: definition.workflow,
        model: definition.model,
        newest: definition.version,
        counts: await store.countJobs({ workflow: definition.workflow }),
        versions,
        sampled: running.length > SAMPLE,
      });
    }
    return c.json({ workflows: out });
  });
  return app;
}
