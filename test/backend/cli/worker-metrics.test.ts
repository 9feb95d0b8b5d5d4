/**
 * `weft worker --metrics-port` as an operator meets it: a worker process serving its own
 * Prometheus `/metrics`, scraped over HTTP while `weft start` (other processes) feeds it
 * graph and code-first jobs. Its counters move with the work it did — jobs ended by
 * workflow and state, task attempts by outcome, retries, steps by kind — its histograms
 * count each task run and engine step, every series has `# HELP` and `# TYPE`, and with
 * `--metrics-store` the store-wide series come along. A bad port is refused by name.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  freshStoreUrl,
  skipBackend,
  type TestStoreLocation,
} from '../../support/store-under-test.js';
import { waitFor } from '../../support/wait-for.js';
import {
  launchWeft,
  REPO_ROOT,
  type RunningWeft,
  runWeft,
  type WeftRun,
} from '../../support/weft-cli.js';

const LIBRARY = pathToFileURL(join(REPO_ROOT, 'dist', 'index.js')).href;

/** A graph workflow: `greet` succeeds, `flaky` fails its first attempt and is retried. */
const GRAPH = `
workflow: hello
activities:
  start: { kind: trigger }
  greet: { kind: task }
  flaky: { kind: task, retry: { attempts: 3, backoff: 50ms } }
transitions:
  start: [greet]
  greet: [flaky]
`;

/** The graph's handlers and a code-first workflow of one task, in one module. */
const MODULE = `
import { defineTask, defineWorkflow, Workflow } from ${JSON.stringify(LIBRARY)};

export const shout = defineTask('shout', async (text) => String(text).toUpperCase());

export const loud = defineWorkflow(
  'loud',
  class extends Workflow {
    async handle(text) {
      return this.execute(shout, text);
    }
  },
);

export default {
  greet: async () => 'hi',
  flaky: async (_input, context) => {
    if (context.attempt === 1) throw new Error('first attempt fails');
    return 'ok';
  },
};
`;

let location: TestStoreLocation;
let dir: string;
const running: RunningWeft[] = [];
beforeEach(async () => {
  location = await freshStoreUrl();
  dir = mkdtempSync(join(tmpdir(), 'weft-metrics-'));
});
afterEach(async () => {
  for (const weft of running.splice(0)) await weft.stop();
  await location.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

function weft(args: string[]): Promise<WeftRun> {
  return runWeft(args, { store: location.url, cwd: dir, timeoutMs: 90_000 });
}

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/** Starts `weft worker … --metrics-port 0 …` and reads the URL it printed. */
async function metricsWorker(extra: string[]): Promise<{ worker: RunningWeft; url: string }> {
  const worker = launchWeft(
    ['worker', '--handlers', file('module.mjs', MODULE), '--metrics-port', '0', ...extra],
    { store: location.url, cwd: dir },
  );
  running.push(worker);
  let url = '';
  await waitFor(
    () => {
      if (!worker.alive()) throw new Error(`weft worker exited: ${worker.err()}`);
      url = /metrics on (http:\/\/\S+)/.exec(worker.err())?.[1] ?? '';
      return url !== '';
    },
    'the worker to serve its metrics',
    { timeoutMs: 30_000, intervalMs: 50 },
  );
  return { worker, url };
}

/** The samples of a scrape, by series name with labels (`name{a="b"}`). */
function samples(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    out.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return out;
}

async function scrape(url: string): Promise<{ text: string; values: Map<string, number> }> {
  const response = await fetch(url);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('text/plain');
  const text = await response.text();
  return { text, values: samples(text) };
}

/** `weft start …args` in its own process; resolves with the job id it printed. */
async function start(args: string[]): Promise<string> {
  const started = await weft(['start', ...args]);
  expect(started.code, started.err).toBe(0);
  return started.out.split('\n').at(-1) as string;
}

describe.skipIf(skipBackend)('weft worker --metrics-port', () => {
  it('serves counters that move with the work the worker did, graph and code-first', async () => {
    expect((await weft(['deploy', file('hello.yaml', GRAPH)])).code).toBe(0);
    const { url } = await metricsWorker(['--metrics-store']);
    const before = await scrape(url);
    expect(before.values.get('weft_jobs_ended_total{workflow="hello",state="SUCCESS"}')).toBe(
      undefined,
    );
    // Five starts from other processes at once; the worker's counters say when it is done.
    const jobs = await Promise.all([
      ...[1, 2, 3].map(() => start(['hello'])),
      ...[1, 2].map(() => start(['loud', '--input', '["hey"]'])),
    ]);
    expect(new Set(jobs).size).toBe(5);
    let after = await scrape(url);
    await waitFor(
      async () => {
        after = await scrape(url);
        const ended = (workflow: string) =>
          after.values.get(`weft_jobs_ended_total{workflow="${workflow}",state="SUCCESS"}`);
        // The store-wide gauge too: a scrape reads the store's numbers before it reads the
        // process's counters, so one scrape can count a job as ended and still RUNNING
        // (on a Redis Cluster, where reading every partition takes longest, it did).
        return (
          ended('hello') === 3 &&
          ended('loud') === 2 &&
          after.values.get('weft_jobs{state="RUNNING"}') === 0
        );
      },
      'the five jobs counted as ended, and none left RUNNING',
      { timeoutMs: 60_000, intervalMs: 200 },
    );
    const v = after.values;
    expect(v.get('weft_jobs_ended_total{workflow="hello",state="SUCCESS"}')).toBe(3);
    expect(v.get('weft_job_duration_seconds_count{workflow="hello",state="SUCCESS"}')).toBe(3);
    expect(v.get('weft_task_attempts_total{task="greet",outcome="success"}')).toBe(3);
    expect(v.get('weft_task_attempts_total{task="flaky",outcome="error"}')).toBe(3);
    expect(v.get('weft_task_attempts_total{task="flaky",outcome="success"}')).toBe(3);
    expect(v.get('weft_task_attempts_total{task="shout",outcome="success"}')).toBe(2);
    expect(v.get('weft_task_retries_total{task="flaky"}')).toBe(3);
    expect(v.get('weft_task_duration_seconds_count{task="greet",outcome="success"}')).toBe(3);
    expect(
      v.get('weft_task_duration_seconds_bucket{le="+Inf",task="greet",outcome="success"}'),
    ).toBe(3);
    // Steps of both models: graph task results, code-first decisions.
    expect(v.get('weft_worker_steps_total{kind="task"}')).toBeGreaterThanOrEqual(9);
    expect(v.get('weft_worker_steps_total{kind="decision"}')).toBeGreaterThanOrEqual(2);
    expect(v.get('weft_step_latency_seconds_count{stream="engine"}')).toBeGreaterThanOrEqual(3);
    // The store-wide series (--metrics-store) and the process's own.
    expect(v.get('weft_jobs{state="RUNNING"}')).toBe(0);
    expect(v.get('weft_steps_total')).toBeGreaterThan(0);
    expect(v.has('process_cpu_seconds_total')).toBe(true);
    // Every series says what it is.
    for (const name of [
      'weft_jobs_started_total',
      'weft_jobs_ended_total',
      'weft_job_duration_seconds',
      'weft_worker_steps_total',
      'weft_step_latency_seconds',
      'weft_task_attempts_total',
      'weft_task_retries_total',
      'weft_task_duration_seconds',
      'weft_messages_dead_lettered_total',
      'weft_jobs',
    ]) {
      expect(after.text).toMatch(new RegExp(`^# HELP ${name} \\S`, 'm'));
      expect(after.text).toMatch(new RegExp(`^# TYPE ${name} (counter|gauge|histogram)$`, 'm'));
    }
  }, 120_000);

  it('serves only its own series without --metrics-store, and 404 off /metrics', async () => {
    const { url } = await metricsWorker([]);
    const { text } = await scrape(url);
    expect(text).toContain('# TYPE weft_task_attempts_total counter');
    expect(text).not.toMatch(/^weft_jobs\{/m);
    expect(text).not.toContain('weft_stream_depth');
    const other = await fetch(url.replace('/metrics', '/jobs'));
    expect(other.status).toBe(404);
    expect((await fetch(url, { method: 'POST' })).status).toBe(405);
  });

  it('refuses a port out of range, and one already taken, by name', async () => {
    const out = await weft(['worker', '--metrics-port', '70000']);
    expect(out.code).not.toBe(0);
    expect(out.err).toMatch(/--metrics-port/);
    expect(out.err).toMatch(/0 to 65535/);
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      const busy = await weft(['worker', '--metrics-port', String(port), '--give-up-ms', '2000']);
      expect(busy.code).toBe(1);
      expect(busy.err).toContain(`metrics port 127.0.0.1:${port}`);
      expect(busy.err).toContain('EADDRINUSE');
    } finally {
      await new Promise<void>((resolve) => taken.close(() => resolve()));
    }
  });
});
