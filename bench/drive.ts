/**
 * How the driver pushes work through a target: run jobs at a fixed concurrency (each
 * lane starts a job, waits for its result, starts the next), wait for the streams to
 * drain, and check that every job ended as it should.
 */
import type { Client } from '../src/client/client.js';
import type { Json } from '../src/store/records.js';
import type { Store } from '../src/store/store.js';
import { BenchError } from './bench-error.js';

/** How long the driver waits for any one job before calling the run broken. */
export const JOB_TIMEOUT_MS = 120_000;

/** What {@link runJobs} measured. */
export interface JobsRun {
  /** Jobs that ended (all SUCCESS, or the run throws). */
  finished: number;
  /** From the first start to the last result. */
  elapsedMs: number;
  /** Start → result of each job, in ms. */
  latenciesMs: number[];
}

/** Options of {@link runJobs}. */
export interface RunJobsOptions {
  concurrency: number;
  jobs: number;
  /** Stop starting jobs after this long (the jobs already started still finish). */
  budgetMs?: number;
  input?: Json;
  /** Start each job on this queue (`Client.start`'s `queue`). */
  queue?: string;
}

/**
 * Runs up to `jobs` jobs of `workflow`, `concurrency` at a time, each lane waiting for
 * its job's result before it starts the next. Throws when a job does not succeed.
 */
export async function runJobs(
  client: Client,
  workflow: string,
  options: RunJobsOptions,
): Promise<JobsRun> {
  const start = performance.now();
  const deadline = options.budgetMs === undefined ? Infinity : start + options.budgetMs;
  const latenciesMs: number[] = [];
  let started = 0;
  const lane = async () => {
    while (started < options.jobs && performance.now() < deadline) {
      started++;
      const t0 = performance.now();
      const job = await client.start(
        workflow,
        options.input ?? {},
        options.queue === undefined ? {} : { queue: options.queue },
      );
      const done = await client.result(job.id, { wait: true, timeoutMs: JOB_TIMEOUT_MS });
      if (done.state !== 'SUCCESS') {
        throw new BenchError(
          'BENCH_JOB_FAILED',
          `job ${job.id} of ${workflow} ended ${done.state}: ${done.error?.message ?? ''}`,
        );
      }
      latenciesMs.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency) }, lane));
  return { finished: latenciesMs.length, elapsedMs: performance.now() - start, latenciesMs };
}

/** Runs `count` calls of `fn` (given 0…count-1), `concurrency` at a time. */
export async function forEachConcurrently(
  count: number,
  concurrency: number,
  fn: (index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < count) await fn(next++);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, count)) }, lane));
}

/**
 * Waits until no stream holds a message (every started job has run as far as it can),
 * polling every `intervalMs`. Throws after `timeoutMs`.
 */
export async function waitUntilDrained(
  store: Store,
  timeoutMs: number,
  intervalMs = 20,
): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const left = await store.countMessages();
    if (left === 0) return;
    if (performance.now() > deadline) {
      throw new BenchError(
        'BENCH_TIMEOUT',
        `${left} messages still waiting after ${Math.round(timeoutMs / 1000)} s`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Checks that a job is parked: RUNNING, with `activity` paused (hook) or started (sleep). */
export async function assertParked(client: Client, jobId: string, activity: string): Promise<void> {
  const view = await client.status(jobId);
  const row = view.activities.find((a) => a.id === activity);
  if (view.state !== 'RUNNING' || !row || !['Paused', 'Started'].includes(row.state)) {
    throw new BenchError(
      'BENCH_NOT_PARKED',
      `job ${jobId} is ${view.state} with ${activity} ${row?.state ?? 'missing'}, not parked`,
    );
  }
}
