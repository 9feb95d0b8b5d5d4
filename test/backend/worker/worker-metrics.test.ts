/**
 * A worker's metrics count its work as it happens (`WeftMetrics` as the Worker's
 * `metrics`): the child jobs it starts, the jobs it ends by state, the messages it
 * dead-letters, the task attempts it runs and the steps it commits — in-process, over a
 * real store, read back from the Prometheus text. Two workers keep separate registries.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Client } from '../../../src/client/client.js';
import { ValidationError } from '../../../src/core/errors.js';
import { compileWorkflow } from '../../../src/engine/compiler.js';
import type { Store } from '../../../src/store/store.js';
import { WeftMetrics } from '../../../src/worker/metrics/weft-metrics.js';
import { Worker } from '../../../src/worker/worker.js';
import { openTestStore, skipBackend } from '../../support/store-under-test.js';
import { waitFor } from '../../support/wait-for.js';

let store: Store;
let close: () => Promise<void>;
let client: Client;
let worker: Worker | undefined;

beforeEach(async () => {
  ({ store, close } = await openTestStore());
  client = new Client(store);
});
afterEach(async () => {
  await worker?.stop();
  worker = undefined;
  await close();
});

const quiet = { error() {}, warn() {}, info() {} };

/** The value of one sample of `metrics` (`name{labels}` as printed), or undefined. */
async function sample(metrics: WeftMetrics, series: string): Promise<number | undefined> {
  for (const line of (await metrics.text()).split('\n')) {
    if (line.startsWith(`${series} `)) return Number(line.slice(series.length + 1));
  }
  return undefined;
}

describe.skipIf(skipBackend)('a worker keeps metrics as it works', () => {
  it('counts the child jobs it starts, the jobs it ends, attempts and steps', async () => {
    await client.deploy(
      compileWorkflow(`
workflow: child
activities:
  start: { kind: trigger }
  work: { kind: task }
transitions:
  start: [work]
`),
    );
    await client.deploy(
      compileWorkflow(`
workflow: parent
activities:
  start: { kind: trigger }
  call: { kind: await, workflow: child }
transitions:
  start: [call]
`),
    );
    const metrics = new WeftMetrics();
    worker = new Worker({
      store,
      idleMs: 100,
      logger: quiet,
      metrics,
      handlers: { work: async () => 'done' },
    });
    await worker.start();
    // One start without metrics, one through a Client given the worker's: only it counts.
    const first = await client.start('parent', {});
    const job = await new Client(store, { metrics }).start('parent', {});
    for (const id of [first.id, job.id]) {
      expect((await client.result(id, { wait: true, timeoutMs: 30_000 })).state).toBe('SUCCESS');
    }
    await waitFor(
      async () =>
        (await sample(metrics, 'weft_jobs_ended_total{workflow="parent",state="SUCCESS"}')) === 2,
      'the parents counted',
    );
    // The worker created the children; the clients created the parents.
    expect(await sample(metrics, 'weft_jobs_started_total{workflow="child"}')).toBe(2);
    expect(await sample(metrics, 'weft_jobs_started_total{workflow="parent"}')).toBe(1);
    expect(await sample(metrics, 'weft_jobs_ended_total{workflow="child",state="SUCCESS"}')).toBe(
      2,
    );
    expect(await sample(metrics, 'weft_task_attempts_total{task="work",outcome="success"}')).toBe(
      2,
    );
    expect(await sample(metrics, 'weft_task_retries_total{task="work"}')).toBe(undefined);
    expect(await sample(metrics, 'weft_worker_steps_total{kind="end"}')).toBe(4);
    expect(
      await sample(metrics, 'weft_step_latency_seconds_count{stream="engine"}'),
    ).toBeGreaterThan(0);
    // Another worker's metrics are its own.
    expect(await sample(new WeftMetrics(), 'weft_jobs_started_total{workflow="child"}')).toBe(
      undefined,
    );
  });

  it('counts the messages it dead-letters and the job that ends with them', async () => {
    await client.deploy(
      compileWorkflow(`
workflow: bad-input
activities:
  start: { kind: trigger }
  bad:   { kind: await, workflow: nowhere }
transitions:
  start: [bad]
`),
    );
    const metrics = new WeftMetrics();
    worker = new Worker({ store, idleMs: 100, maxDeliveries: 2, logger: quiet, metrics });
    await worker.start();
    const job = await client.start('bad-input', {});
    expect((await client.result(job.id, { wait: true, timeoutMs: 30_000 })).state).toBe('FAILURE');
    await waitFor(
      async () =>
        (await sample(metrics, 'weft_messages_dead_lettered_total{stream="engine"}')) === 1,
      'the dead letter counted',
    );
    expect(
      await sample(metrics, 'weft_jobs_ended_total{workflow="bad-input",state="FAILURE"}'),
    ).toBe(1);
  });

  it('serves them on metricsPort from start to stop, and refuses a port out of range', async () => {
    expect(() => new Worker({ store, metricsPort: 70_000 })).toThrow(ValidationError);
    expect(() => new Worker({ store, metricsPort: 1.5 })).toThrow(/metricsPort/);
    worker = new Worker({ store, idleMs: 100, logger: quiet, metricsPort: 0 });
    expect(worker.metricsUrl).toBe(undefined);
    await worker.start();
    const url = worker.metricsUrl as string;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    const text = await (await fetch(url)).text();
    expect(text).toContain('# TYPE weft_task_attempts_total counter');
    expect(text).toContain('process_cpu_seconds_total');
    await worker.stop();
    worker = undefined;
    await expect(fetch(url)).rejects.toThrow();
  });
});
