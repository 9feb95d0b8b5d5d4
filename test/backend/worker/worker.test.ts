/**
 * The real Worker: many jobs through its concurrent loops, notices instead of polling,
 * heartbeats, and a graceful stop.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Client } from '../../../src/client/client.js';
import { compileWorkflow } from '../../../src/engine/compiler.js';
import type { Store } from '../../../src/store/store.js';
import { Worker } from '../../../src/worker/worker.js';
import { openTestStore } from '../../support/store-under-test.js';
import { waitFor } from '../../support/wait-for.js';

const fanOut = compileWorkflow(`
workflow: fan
activities:
  start: { kind: trigger }
  a:     { kind: task, task: work, input: "{ 'n': input.n, 'side': 'a' }" }
  b:     { kind: task, task: work, input: "{ 'n': input.n, 'side': 'b' }" }
  c:     { kind: task, task: work, input: "{ 'n': input.n, 'side': 'c' }" }
  join:  { kind: task, task: sum, input: "a.output + b.output + c.output" }
transitions:
  start: [a, b, c]
  a: [join]
  b: [join]
  c: [join]
output: "join.output"
`);

let store: Store;
let close: () => Promise<void>;
let client: Client;
beforeEach(async () => {
  ({ store, close } = await openTestStore());
  client = new Client(store);
  await client.deploy(fanOut);
});
afterEach(async () => close());

describe('Worker', () => {
  it('runs 64 handlers at once on its defaults, and no more', async () => {
    let running = 0;
    let most = 0;
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const worker = new Worker({
      store,
      handlers: {
        work: async (input) => {
          running++;
          most = Math.max(most, running);
          await released;
          running--;
          return (input as { n: number }).n;
        },
        sum: async (input) => input,
      },
    });
    await worker.start();
    try {
      // 30 jobs enter 90 `work` tasks at once: 64 run, the rest wait for a slot.
      const jobs = await Promise.all(
        Array.from({ length: 30 }, (_, n) => client.start('fan', { n })),
      );
      await waitFor(() => running === 64, '64 handlers running at once');
      release();
      const done = await Promise.all(
        jobs.map((j) => client.result(j.id, { wait: true, timeoutMs: 60_000 })),
      );
      expect(done.map((j) => j.state)).toEqual(jobs.map(() => 'SUCCESS'));
      expect(most).toBe(64);
    } finally {
      release();
      await worker.stop();
    }
  });

  it('runs 100 jobs with parallel branches and joins to the end, leaving no message behind', async () => {
    const worker = new Worker({
      store,
      concurrency: 20,
      handlers: {
        work: async (input) => (input as { n: number }).n,
        sum: async (input) => input,
      },
    });
    await worker.start();
    try {
      const jobs = await Promise.all(
        Array.from({ length: 100 }, (_, n) => client.start('fan', { n })),
      );
      const done = await Promise.all(
        jobs.map((j) => client.result(j.id, { wait: true, timeoutMs: 60_000 })),
      );
      expect(done.map((j) => j.state)).toEqual(jobs.map(() => 'SUCCESS'));
      expect(done.map((j) => j.output)).toEqual(jobs.map((_, n) => 3 * n));
    } finally {
      await worker.stop();
    }
    expect(await store.countMessages()).toBe(0);
    expect(await store.listDeadLetters()).toEqual([]);
  });

  it('lets a running handler finish on stop and records its result', async () => {
    let release: () => void = () => {};
    const started = new Promise<void>((resolve) => {
      release = resolve;
    });
    const worker = new Worker({
      store,
      graceMs: 10_000,
      handlers: {
        work: async () => {
          release();
          await new Promise((r) => setTimeout(r, 300));
          return 1;
        },
        sum: async (input) => input,
      },
    });
    await worker.start();
    const job = await client.start('fan', { n: 1 });
    await started;
    await worker.stop();
    // The three branch results were committed before stop returned.
    const records = await store.listActivities(job.id);
    const finished = records.filter(
      (r) => ['a', 'b', 'c'].includes(r.activity) && r.status === 'SUCCESS',
    );
    expect(finished.length).toBeGreaterThan(0);
    // A second worker finishes the job.
    const second = new Worker({ store, handlers: { work: async () => 1, sum: async (i) => i } });
    await second.start();
    try {
      expect((await client.result(job.id, { wait: true, timeoutMs: 30_000 })).output).toBe(3);
    } finally {
      await second.stop();
    }
  });

  it('gives an unfinished handler back on stop after the grace period, so another worker runs it', async () => {
    let runs = 0;
    const slow = new Worker({
      store,
      graceMs: 50,
      handlers: {
        work: (_input, ctx) =>
          new Promise((_resolve, reject) => {
            runs++;
            ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason));
          }),
        sum: async (i) => i,
      },
    });
    await slow.start();
    const job = await client.start('fan', { n: 2 });
    while (runs < 3) await new Promise((r) => setTimeout(r, 10));
    await slow.stop();
    expect(await store.countMessages()).toBeGreaterThan(0);
    const fast = new Worker({ store, handlers: { work: async () => 2, sum: async (i) => i } });
    await fast.start();
    try {
      const done = await client.result(job.id, { wait: true, timeoutMs: 30_000 });
      expect(done.output).toBe(6);
    } finally {
      await fast.stop();
    }
  });
});

describe('a task handler retried', () => {
  it('sees one idempotency key on every attempt, and the attempt apart', async () => {
    await client.deploy(
      compileWorkflow(`
workflow: pay
activities:
  start:  { kind: trigger }
  charge: { kind: task, retry: { attempts: 2, backoff: 10ms } }
transitions: { start: [charge] }
output: "charge.output"
`),
    );
    const seen: { key: string; attempt: number }[] = [];
    const worker = new Worker({
      store,
      handlers: {
        charge: async (_input, ctx) => {
          seen.push({ key: ctx.idempotencyKey, attempt: ctx.attempt });
          if (ctx.attempt === 1) throw new Error('card network timed out');
          return 'charged';
        },
      },
    });
    await worker.start();
    try {
      const job = await client.start('pay', null);
      const done = await client.result(job.id, { wait: true, timeoutMs: 30_000 });
      expect(done.output).toBe('charged');
      expect(seen).toEqual([
        { key: `${job.id}:charge:`, attempt: 1 },
        { key: `${job.id}:charge:`, attempt: 2 },
      ]);
      // The job's view shows the attempts and the times, per activity.
      const charge = (await client.status(job.id)).activities.find((a) => a.id === 'charge');
      expect(charge).toMatchObject({ position: 1, status: 'SUCCESS', attempts: 2, error: null });
      expect(charge?.startedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
      expect(charge?.finishedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    } finally {
      await worker.stop();
    }
  });
});
