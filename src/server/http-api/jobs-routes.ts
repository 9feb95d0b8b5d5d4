/**
 * `GET /api/jobs` (newest first; filters workflow, state, from/to; search by id; counts by
 * state; keyset pages through `after`), `GET /api/jobs/:id` (see job-detail.ts) and
 * `GET /api/jobs/:id/history`.
 */
import { Hono } from 'hono';
import type { Client } from '../../client/client.js';
import { ValidationError } from '../../core/errors.js';
import { FLOW_STATES, type FlowState } from '../../core/states.js';
import type { JobFilter, JobRecord } from '../../store/records.js';
import type { Store } from '../../store/store.js';
import { jobDetail } from './job-detail.js';
import { pathId, queryNumber, queryTime } from './request-input.js';

/** One row of the jobs list. */
export interface JobRow {
  id: string;
  workflow: string;
  version: number;
  model: JobRecord['model'];
  state: FlowState;
  parent: string | null;
  createdAt: string;
  updatedAt: string;
  finishedAt: string | null;
  error: string | null;
}

/** `GET /api/jobs`. */
export interface JobPage {
  jobs: JobRow[];
  /** Pass as `after` for the next (older) page; null on the last page. */
  next: string | null;
  /** Jobs by state under the same workflow and time filters (not the state filter). */
  counts: Partial<Record<FlowState, number>>;
  total: number;
}

function row(job: JobRecord): JobRow {
  return {
    id: job.id,
    workflow: job.workflow,
    version: job.version,
    model: job.model,
    state: job.state,
    parent: job.parentId,
    createdAt: new Date(job.createdAt).toISOString(),
    updatedAt: new Date(job.updatedAt).toISOString(),
    finishedAt: job.finishedAt === null ? null : new Date(job.finishedAt).toISOString(),
    error: job.error ? `${job.error.name}: ${job.error.message}` : null,
  };
}

function states(text: string | undefined): FlowState[] | undefined {
  if (text === undefined || text === '') return undefined;
  const list = text.split(',').map((s) => s.trim().toUpperCase());
  for (const s of list) {
    if (!(FLOW_STATES as readonly string[]).includes(s)) {
      throw new ValidationError(
        `unknown state ${JSON.stringify(s)} (${FLOW_STATES.join(', ')})`,
        'state',
      );
    }
  }
  return list as FlowState[];
}

/** The jobs routes. */
export function jobsRoutes(store: Store, client: Client): Hono {
  const app = new Hono();

  app.get('/', async (c) => {
    const limit = queryNumber(c, 'limit', 50, 1, 500);
    const filter: JobFilter = { descending: true, limit: limit + 1 };
    const workflow = c.req.query('workflow');
    if (workflow) filter.workflow = workflow;
    const from = queryTime(c, 'from');
    const to = queryTime(c, 'to');
    if (from !== undefined) filter.createdAfter = from;
    if (to !== undefined) filter.createdBefore = to;
    const counts = await store.countJobs(filter);
    const total = Object.values(counts).reduce((n, v) => n + (v ?? 0), 0);
    const search = c.req.query('id')?.trim();
    if (search) {
      // Search by id: the job itself, when there is one and it passes the filters.
      const job = await store.getJob(search);
      const wanted = states(c.req.query('state'));
      const keep =
        job &&
        (!filter.workflow || job.workflow === filter.workflow) &&
        (!wanted || wanted.includes(job.state)) &&
        (from === undefined || job.createdAt >= from) &&
        (to === undefined || job.createdAt < to);
      return c.json({ jobs: keep ? [row(job)] : [], next: null, counts, total } satisfies JobPage);
    }
    const wanted = states(c.req.query('state'));
    if (wanted) filter.state = wanted;
    const after = c.req.query('after');
    if (after) filter.after = after;
    const jobs = await store.listJobs(filter);
    const page = jobs.slice(0, limit);
    const next = jobs.length > limit ? (page.at(-1)?.id ?? null) : null;
    return c.json({ jobs: page.map(row), next, counts, total } satisfies JobPage);
  });

  app.get('/:id', async (c) => c.json(await jobDetail(store, client, pathId(c))));

  app.get('/:id/history', async (c) => {
    const id = pathId(c);
    const afterSeq = queryNumber(c, 'after', 0, 0, Number.MAX_SAFE_INTEGER);
    const limit = queryNumber(c, 'limit', 500, 1, 1000);
    return c.json({ history: await client.history(id, { afterSeq, limit }) });
  });

  return app;
}
