/**
 * Everything the dashboard shows of one job (`GET /api/jobs/:id`): its view (state,
 * collation key, activities with their digits, children through the compositional key,
 * what it waits for; a code-first job's instance with its branches, executions, statuses,
 * properties by execution index, buffer and waits), and for a graph job its compiled
 * graph, every activity record (each dimensional thread of a cycle) and every
 * activity's semaphore read the seed-001 way; and for both models the timeline of its
 * steps (models/step-timeline.ts), read off the instance or records and the history.
 */
import type { Client } from '../../client/client.js';
import type { JobView } from '../../client/job-view.js';
import { MIN_COLLATION_WIDTH } from '../../core/collation.js';
import { DIGIT_LABELS, isCollationDigit } from '../../core/collation-digits.js';
import { parseCompositionalKey } from '../../core/compositional-key.js';
import { NotFoundError } from '../../core/errors.js';
import { parseSemaphore, type SemaphoreFields } from '../../core/semaphore.js';
import type { Instance } from '../../durable/instance.js';
import type { CompiledActivity, CompiledWorkflow } from '../../engine/kinds/index.js';
import { SEMAPHORE_FIELD } from '../../engine/legs.js';
import type { CompiledTransition } from '../../graph/compiled-workflow.js';
import {
  type ActivityFailure,
  activityReading,
  type CollationLegend,
  collationLegend,
} from '../../models/collation-legend.js';
import { durableTimeline, graphTimeline, type JobTimeline } from '../../models/step-timeline.js';
import { historyForTimeline } from '../../models/timeline-history.js';
import type { ActivityRecord, Json } from '../../store/records.js';
import type { Store } from '../../store/store.js';

/** A graph workflow version as the dashboard draws it. */
export interface GraphShape {
  workflow: string;
  version: number;
  trigger: string;
  /** Activity ids by digit position: `order[0]` is the key's leftmost digit. */
  order: string[];
  activities: Record<string, CompiledActivity>;
  transitions: CompiledTransition[];
  /** Each cycle activity and the upstream activity it re-enters. */
  cycles: { from: string; to: string }[];
}

/** One activity's semaphore, read the seed-001 way. */
export interface SemaphoreView extends Partial<SemaphoreFields> {
  activity: string;
  dimension: string;
  /** The 15 digits. */
  value: string;
  /** What the fields say, in words. */
  reading: string;
}

/** An activity record as the API returns it (times as ISO strings). */
export interface ActivityRecordView {
  activity: string;
  dimension: string;
  status: string;
  input: Json;
  output: Json;
  error: ActivityRecord['error'];
  attempt: number;
  startedAt: string | null;
  finishedAt: string | null;
  updatedAt: string;
}

/** `GET /api/jobs/:id`. */
export interface JobDetail {
  job: JobView;
  /** Graph jobs: the graph it runs. */
  graph: GraphShape | null;
  /**
   * Graph jobs: the stored key, flat, one digit per activity in `graph.order` (then
   * zeros); `job.collation` is the key as printed, with scopes' members in bookends.
   */
  flatKey: string | null;
  /**
   * Graph jobs: each digit of the key with its activity and meaning, leftmost first.
   * `label` names the digit; `state` names the activity's state, which tells a reverted
   * activity from a skipped one (both 3); `failure` says whether it failed: `unhandled`
   * (its 7 ends the job in FAILURE), `handled` (an error or timeout transition took it).
   */
  digits: {
    activity: string;
    position: number;
    digit: number;
    label: string;
    state: string;
    failure: ActivityFailure;
  }[];
  /** Graph jobs: what each digit of the key and of a semaphore means; null for code-first. */
  legend: CollationLegend | null;
  /** The compositional key parsed: this job's key and its children's, nested. */
  compositionalTree: Json;
  records: ActivityRecordView[];
  semaphores: SemaphoreView[];
  /**
   * Both models: the job's steps in the order they ran, each with its start, end,
   * duration, outcome and attempts (a code-first job's tasks, waits, events, child
   * workflows, properties and reverts; a graph job's activity records).
   */
  timeline: JobTimeline;
}

export { TIMELINE_HISTORY_LIMIT } from '../../models/timeline-history.js';

/** The graph of a compiled workflow, for drawing. */
export function graphShape(compiled: CompiledWorkflow): GraphShape {
  return {
    workflow: compiled.workflow,
    version: compiled.version,
    trigger: compiled.trigger,
    order: compiled.order,
    activities: compiled.activities,
    transitions: compiled.transitions,
    cycles: Object.values(compiled.activities)
      .filter((a) => a.ancestor !== undefined)
      .map((a) => ({ from: a.id, to: a.ancestor as string })),
  };
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** The words for a semaphore's fields. */
function semaphoreReading(f: SemaphoreFields): string {
  const leg1 =
    f.leg1Entry === 9
      ? 'Leg1 not entered'
      : `Leg1 entered ${9 - f.leg1Entry} time(s), ${f.leg1Exit === 8 ? 'completed' : f.leg1Exit === 9 ? 'running' : `exited ${9 - f.leg1Exit} time(s)`}`;
  const leg2 = `Leg2 ${f.leg2Exit === 9 ? 'open' : 'closed'}: ${f.leg2Entries} thread(s) entered, ${f.leg2Exits} exited`;
  return `${leg1}; ${leg2}`;
}

/** Reads everything `GET /api/jobs/:id` returns. */
export async function jobDetail(store: Store, client: Client, id: string): Promise<JobDetail> {
  const job = await store.getJob(id);
  if (!job) throw new NotFoundError('job', id);
  const view = await client.status(id);
  const stored = await store.listActivities(id);
  const records = stored.map(
    (r): ActivityRecordView => ({
      activity: r.activity,
      dimension: r.dimension,
      status: r.status,
      input: r.input,
      output: r.output,
      error: r.error,
      attempt: r.attempt,
      startedAt: iso(r.startedAt),
      finishedAt: iso(r.finishedAt),
      updatedAt: iso(r.updatedAt) as string,
    }),
  );
  let graph: GraphShape | null = null;
  const semaphores: SemaphoreView[] = [];
  if (job.model === 'graph') {
    const record = await store.getDefinition(job.workflow, job.version);
    if (record) graph = graphShape(record.definition as unknown as CompiledWorkflow);
    for (const [key, value] of await store.listCounters(id)) {
      const parts = key.split('/');
      if (parts.length < 3 || parts.at(-1) !== SEMAPHORE_FIELD) continue;
      const activity = parts[0] as string;
      const dimension = parts.slice(1, -1).join('/');
      try {
        const fields = parseSemaphore(value);
        semaphores.push({
          activity,
          dimension,
          value: value.toString().padStart(15, '0'),
          ...fields,
          reading: semaphoreReading(fields),
        });
      } catch {
        semaphores.push({ activity, dimension, value: value.toString(), reading: 'unreadable' });
      }
    }
  }
  const digits = view.activities
    .filter((a) => a.position !== null && a.digit !== null)
    .map((a) => {
      const digit = a.digit as number;
      const reading = isCollationDigit(digit)
        ? activityReading(digit, a.status)
        : { state: String(digit), failure: null };
      return {
        activity: a.id,
        position: a.position as number,
        digit,
        label: isCollationDigit(digit) ? DIGIT_LABELS[digit] : String(digit),
        ...reading,
      };
    })
    .sort((x, y) => x.position - y.position);
  const flatKey =
    digits.length === 0
      ? null
      : digits
          .map((d) => String(d.digit))
          .join('')
          .padEnd(Math.max(MIN_COLLATION_WIDTH, digits.length), '0');
  let compositionalTree: Json = null;
  if (view.compositional) {
    try {
      compositionalTree = parseCompositionalKey(view.compositional) as unknown as Json;
    } catch {
      compositionalTree = null;
    }
  }
  const history = await historyForTimeline(store, id);
  const timeline =
    job.model === 'graph'
      ? graphTimeline(
          job,
          stored,
          Object.fromEntries(Object.entries(graph?.activities ?? {}).map(([k, a]) => [k, a.kind])),
          history.lines,
          history.truncated,
        )
      : durableTimeline(
          job,
          (view.instance ?? null) as unknown as Instance | null,
          history.lines,
          history.truncated,
        );
  return {
    job: view,
    graph,
    flatKey,
    digits,
    legend: job.model === 'graph' ? collationLegend() : null,
    compositionalTree,
    records,
    semaphores,
    timeline,
  };
}
