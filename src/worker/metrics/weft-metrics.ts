/**
 * A process's own metrics, counted as its work happens — never summed from the store at
 * scrape time, so a scrape costs the same whatever the store's history holds. One
 * `WeftMetrics` per process (or per worker: each owns its registry, there is no global
 * one), handed to a {@link Worker} (`metrics` option) as its {@link WorkObserver}.
 * Counters start at 0 when the process starts; Prometheus's `rate()` and `increase()`
 * read a restart as a reset. The instruments are prom-client's; the series:
 *
 * - `weft_jobs_started_total{workflow}`: jobs this process created (a child job, a
 *   schedule's tick, or a start through a Client given these metrics);
 * - `weft_jobs_ended_total{workflow,state}` and `weft_job_duration_seconds{workflow,state}`:
 *   jobs whose last step this process committed, by end state, and their time from
 *   creation to end;
 * - `weft_worker_steps_total{kind}`: history lines this process committed — one per step
 *   of either model (`enter`, `task`, `decision`, `signal`, `wake`, `end`…);
 * - `weft_step_latency_seconds{stream}`: engine steps, from their message being due to
 *   the commit of the step that ran it (backlog plus run);
 * - `weft_task_attempts_total{task,outcome}`, `weft_task_retries_total{task}` (attempts
 *   after the first) and `weft_task_duration_seconds{task,outcome}`: handler runs;
 * - `weft_messages_dead_lettered_total{stream}`: messages it moved to the dead letters;
 * - with `processMetrics`, prom-client's `process_*` and `nodejs_*` series.
 */
import {
  Counter,
  collectDefaultMetrics,
  Histogram,
  type PrometheusContentType,
  Registry,
} from 'prom-client';
import type { StreamMessage } from '../../store/records.js';
import type { CommitReport } from '../commit-report.js';
import type { EndedAttempt, WorkObserver } from '../work-observer.js';

/** Bounds (s) of the step latency histogram: 1 ms to a minute. */
export const STEP_LATENCY_BOUNDS_S = [
  0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60,
];

/** Bounds (s) of the task duration histogram: 5 ms to an hour. */
export const TASK_DURATION_BOUNDS_S = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600,
];

/** Bounds (s) of the job duration histogram: 10 ms to a day. */
export const JOB_DURATION_BOUNDS_S = [
  0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 21600, 86400,
];

/** How a {@link WeftMetrics} is made. */
export interface WeftMetricsOptions {
  /** Also the process's CPU, memory, event-loop lag and GC series (prom-client's defaults). */
  processMetrics?: boolean;
}

/** A process's counters and histograms, kept as work happens; see the module's note. */
export class WeftMetrics implements WorkObserver {
  /** The prom-client registry holding this process's series (not the global default). */
  readonly registry = new Registry<PrometheusContentType>();
  private readonly jobsStarted: Counter<'workflow'>;
  private readonly jobsEnded: Counter<'workflow' | 'state'>;
  private readonly jobDuration: Histogram<'workflow' | 'state'>;
  private readonly steps: Counter<'kind'>;
  private readonly stepLatency: Histogram<'stream'>;
  private readonly attempts: Counter<'task' | 'outcome'>;
  private readonly retries: Counter<'task'>;
  private readonly taskDuration: Histogram<'task' | 'outcome'>;
  private readonly deadLettered: Counter<'stream'>;

  constructor(options: WeftMetricsOptions = {}) {
    const registers = [this.registry];
    this.jobsStarted = new Counter({
      name: 'weft_jobs_started_total',
      help: 'Jobs this process created, by workflow.',
      labelNames: ['workflow'],
      registers,
    });
    this.jobsEnded = new Counter({
      name: 'weft_jobs_ended_total',
      help: 'Jobs whose last step this process committed, by workflow and end state.',
      labelNames: ['workflow', 'state'],
      registers,
    });
    this.jobDuration = new Histogram({
      name: 'weft_job_duration_seconds',
      help: "Time from a job's creation to its end, for the jobs this process ended.",
      labelNames: ['workflow', 'state'],
      buckets: JOB_DURATION_BOUNDS_S,
      registers,
    });
    this.steps = new Counter({
      name: 'weft_worker_steps_total',
      help: 'Steps (history lines) this process committed, by kind.',
      labelNames: ['kind'],
      registers,
    });
    this.stepLatency = new Histogram({
      name: 'weft_step_latency_seconds',
      help: 'Engine steps, from their message being due to the commit of the step that ran it.',
      labelNames: ['stream'],
      buckets: STEP_LATENCY_BOUNDS_S,
      registers,
    });
    this.attempts = new Counter({
      name: 'weft_task_attempts_total',
      help: 'Task handler attempts this process ran, by task and outcome.',
      labelNames: ['task', 'outcome'],
      registers,
    });
    this.retries = new Counter({
      name: 'weft_task_retries_total',
      help: 'Task attempts after the first (retries) this process ran, by task.',
      labelNames: ['task'],
      registers,
    });
    this.taskDuration = new Histogram({
      name: 'weft_task_duration_seconds',
      help: 'How long task handlers ran on this process, by task and outcome.',
      labelNames: ['task', 'outcome'],
      buckets: TASK_DURATION_BOUNDS_S,
      registers,
    });
    this.deadLettered = new Counter({
      name: 'weft_messages_dead_lettered_total',
      help: 'Messages this process moved to the dead letters, by the stream they came from.',
      labelNames: ['stream'],
      registers,
    });
    if (options.processMetrics) collectDefaultMetrics({ register: this.registry });
  }

  /** The Prometheus text of every series, with `# HELP` and `# TYPE`. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  /** The content type of {@link text}. */
  get contentType(): string {
    return this.registry.contentType;
  }

  stepsCommitted(messages: readonly StreamMessage[], now: number): void {
    for (const m of messages) {
      const due = Math.max(m.createdAt, m.availableAt);
      this.stepLatency.observe({ stream: m.stream }, Math.max(0, now - due) / 1000);
    }
  }

  attemptEnded(attempt: EndedAttempt): void {
    const labels = { task: attempt.task, outcome: attempt.outcome };
    this.attempts.inc(labels);
    if (attempt.attempt > 1) this.retries.inc({ task: attempt.task });
    this.taskDuration.observe(labels, Math.max(0, attempt.durationMs) / 1000);
  }

  committed(report: CommitReport): void {
    for (const job of report.created) this.jobsStarted.inc({ workflow: job.workflow });
    for (const job of report.ended) {
      const labels = { workflow: job.workflow, state: job.state };
      this.jobsEnded.inc(labels);
      if (job.finishedAt !== null) {
        this.jobDuration.observe(labels, Math.max(0, job.finishedAt - job.createdAt) / 1000);
      }
    }
    const kinds = new Map<string, number>();
    for (const line of report.history) kinds.set(line.kind, (kinds.get(line.kind) ?? 0) + 1);
    for (const [kind, n] of kinds) this.steps.inc({ kind }, n);
    for (const stream of report.deadLettered) this.deadLettered.inc({ stream });
  }
}
