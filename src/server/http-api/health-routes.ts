/**
 * `GET /healthz` (200 `{ ok: true, store, token }` when the store answers — `token`: whether
 * the API wants one — 503 `{ ok: false, store, error: <code> }` otherwise) and
 * `GET /metrics` in the Prometheus text format: jobs by state, steps and handler runs
 * (totals, and per second since the previous scrape), stream depths, held messages and
 * expired leases per stream, dead letters per stream, each queue's series
 * (queue-metrics.ts), and each cron schedule's runs, skipped ticks, pause and next tick.
 */
import { Hono } from 'hono';
import { WeftError } from '../../core/errors.js';
import { FLOW_STATES } from '../../core/states.js';
import { DURABLE_STREAM } from '../../durable/durable-messages.js';
import { ENGINE_STREAM } from '../../engine/messages.js';
import type {
  QueueKeyCount,
  QueueRecord,
  ScheduleRecord,
  StoreStats,
} from '../../store/records.js';
import type { Store } from '../../store/store.js';
import { RETRY_AFTER_SECONDS } from './api-errors.js';
import { labelValue, queueMetricLines } from './queue-metrics.js';

/** The Prometheus text of a store's numbers; `rates` are per second since the last scrape. */
export function metricsText(
  stats: StoreStats,
  rates: { steps: number; handlerRuns: number },
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
    'Jobs by state.',
    FLOW_STATES.map((s) => [`{state="${s}"}`, stats.jobs[s] ?? 0]),
  );
  metric('weft_steps_total', 'counter', 'Engine steps committed (history lines).', [
    ['', stats.steps],
  ]);
  metric('weft_steps_per_second', 'gauge', 'Steps per second since the previous scrape.', [
    ['', rates.steps],
  ]);
  metric('weft_handler_runs_total', 'counter', 'Task handler attempts recorded.', [
    ['', stats.handlerRuns],
  ]);
  metric(
    'weft_handler_runs_per_second',
    'gauge',
    'Handler attempts per second since the previous scrape.',
    [['', rates.handlerRuns]],
  );
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

/** `/healthz` and `/metrics`; `now` reads the clock. */
export function healthRoutes(
  store: Store,
  now: () => number = Date.now,
  tokenRequired = false,
): {
  open: Hono;
  guarded: Hono;
} {
  const open = new Hono();
  open.get('/healthz', async (c) => {
    try {
      await store.lastStep();
      return c.json({ ok: true, store: store.dialect, token: tokenRequired });
    } catch (error) {
      // Open to anyone: the code only, not the store's message (hosts, paths).
      const code = error instanceof WeftError ? error.code : 'STORE';
      return c.json({ ok: false, store: store.dialect, error: code }, 503, {
        'retry-after': String(RETRY_AFTER_SECONDS),
      });
    }
  });
  const guarded = new Hono();
  let previous: { at: number; steps: number; handlerRuns: number } | undefined;
  guarded.get('/metrics', async (c) => {
    const at = now();
    const stats = await store.storeStats(at);
    const seconds = previous ? (at - previous.at) / 1000 : 0;
    const rate = (n: number, before: number) =>
      seconds > 0 ? Math.max(0, Math.round(((n - before) / seconds) * 100) / 100) : 0;
    const rates = {
      steps: rate(stats.steps, previous?.steps ?? 0),
      handlerRuns: rate(stats.handlerRuns, previous?.handlerRuns ?? 0),
    };
    previous = { at, steps: stats.steps, handlerRuns: stats.handlerRuns };
    const [schedules, queues, queueRecords] = await Promise.all([
      store.listSchedules(),
      store.queueCounts(),
      store.listQueues(),
    ]);
    return c.text(metricsText(stats, rates, at, schedules, queues, queueRecords), 200, {
      'content-type': 'text/plain; version=0.0.4; charset=utf-8',
    });
  });
  return { open, guarded };
}
