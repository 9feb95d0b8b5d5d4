/**
 * The store-wide series of `/metrics`, read from the store at each scrape with a fixed
 * set of reads that cost the same however many jobs have finished: unfinished jobs by
 * state (over the jobs' state index), the history's id high-water mark (steps so far),
 * per-stream depths with held messages and expired leases, dead letters by stream, each
 * queue's series (queue-series.ts) and each cron schedule's runs, skipped ticks, pause
 * and next tick. Finished jobs and task attempts are counted as they happen, by the
 * processes that did the work (weft-metrics.ts). The dashboard serves these; so does a
 * worker's metrics port when asked (`metricsStore`).
 */
import { UNFINISHED_FLOW_STATES } from '../../core/states.js';
import { DURABLE_STREAM } from '../../durable/durable-messages.js';
import { ENGINE_STREAM } from '../../engine/messages.js';
import type {
  QueueKeyCount,
  QueueRecord,
  ScheduleRecord,
  StoreStats,
} from '../../store/records.js';
import type { Store } from '../../store/store.js';
import { labelValue, queueMetricLines } from './queue-series.js';

/** The Prometheus text of a store's numbers; `rates` are per second since the last scrape. */
export function metricsText(
  stats: StoreStats,
  rates: { steps: number },
  now: number,
  schedules: readonly ScheduleRecord[] = [],
  queues: readonly QueueKeyCount[] = [],
  queueRecords: readonly QueueRecord[] = [],
): string {
  const lines: string[] = [];
  const metric = (name: string, type: string, help: string, samples: [string, number][]) => {
    lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
    for (const [labels, value] of samples) lines.push(`${name}${labels} ${value}`);
  };
  metric(
    'weft_jobs',
    'gauge',
    'Unfinished jobs by state (finished ones: weft_jobs_ended_total, from the workers).',
    UNFINISHED_FLOW_STATES.map((s) => [`{state="${s}"}`, stats.jobs[s] ?? 0]),
  );
  metric('weft_steps_total', 'counter', 'Engine steps committed (history lines).', [
    ['', stats.steps],
  ]);
  metric('weft_steps_per_second', 'gauge', 'Steps per second since the previous scrape.', [
    ['', rates.steps],
  ]);
  // The engine's own streams are always listed, at 0 when empty.
  const streams = [...stats.streams];
  for (const stream of [ENGINE_STREAM, DURABLE_STREAM]) {
    if (!streams.some((s) => s.stream === stream)) {
      streams.push({ stream, messages: 0, claimed: 0, expiredLeases: 0, deadLetters: 0 });
    }
  }
  const per = (pick: (s: StoreStats['streams'][number]) => number) =>
    streams.map((s): [string, number] => [`{stream="${labelValue(s.stream)}"}`, pick(s)]);
  metric(
    'weft_stream_depth',
    'gauge',
    'Messages on each stream, waiting or held.',
    per((s) => s.messages),
  );
  metric(
    'weft_stream_claimed',
    'gauge',
    'Messages held under a live lease.',
    per((s) => s.claimed),
  );
  metric(
    'weft_lease_expiries',
    'gauge',
    'Messages held past their lease.',
    per((s) => s.expiredLeases),
  );
  metric(
    'weft_dead_letters',
    'gauge',
    'Dead letters by the stream they came from.',
    per((s) => s.deadLetters),
  );
  lines.push(...queueMetricLines(queueRecords, queues, now));
  if (schedules.length > 0) {
    const each = (pick: (s: ScheduleRecord) => number) =>
      schedules.map((s): [string, number] => [`{schedule="${labelValue(s.name)}"}`, pick(s)]);
    metric(
      'weft_schedule_runs_total',
      'counter',
      'Ticks of each schedule that started a job.',
      each((s) => s.runs),
    );
    metric(
      'weft_schedule_skipped_total',
      'counter',
      'Ticks of each schedule skipped: overlap policy, catch-up window, pause, or an error.',
      each((s) => s.skipped),
    );
    metric(
      'weft_schedule_paused',
      'gauge',
      'Whether each schedule is paused (1) or not (0).',
      each((s) => (s.paused ? 1 : 0)),
    );
    metric(
      'weft_schedule_next_run_timestamp_seconds',
      'gauge',
      "Each schedule's next tick, in Unix seconds (0: none, or paused).",
      each((s) => (s.paused || s.nextAt === null ? 0 : s.nextAt / 1000)),
    );
  }
  return `${lines.join('\n')}\n`;
}

/**
 * Reads the store-wide series at each scrape: four store calls (stats, schedules, queue
 * counts, queues), none of which reads finished jobs or activity records. Keeps the
 * previous scrape's step count for the per-second gauge.
 */
export class StoreSeries {
  private previous: { at: number; steps: number } | undefined;

  constructor(private readonly store: Store) {}

  /** The series' text at `now` (epoch ms). */
  async text(now: number): Promise<string> {
    const [stats, schedules, queues, queueRecords] = await Promise.all([
      this.store.storeStats(now),
      this.store.listSchedules(),
      this.store.queueCounts(),
      this.store.listQueues(),
    ]);
    const seconds = this.previous ? (now - this.previous.at) / 1000 : 0;
    const before = this.previous?.steps ?? 0;
    const steps =
      seconds > 0 ? Math.max(0, Math.round(((stats.steps - before) / seconds) * 100) / 100) : 0;
    this.previous = { at: now, steps: stats.steps };
    return metricsText(stats, { steps }, now, schedules, queues, queueRecords);
  }
}
