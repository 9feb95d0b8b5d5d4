/**
 * Rerunning a graph job from an activity: a new job keeps the old one's results before
 * that activity (their handlers do not run again, their outputs feed what follows), runs
 * the activity and everything after it again, joins waiting only for what runs again;
 * both histories say so; a rerun that would keep an unfinished activity is refused and
 * writes nothing.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Client } from '../../../src/client/client.js';
import { ValidationError } from '../../../src/core/errors.js';
import { compileWorkflow } from '../../../src/engine/compiler.js';
import type { Store } from '../../../src/store/store.js';
import { Worker } from '../../../src/worker/worker.js';
import { openTestStore, skipBackend } from '../../support/store-under-test.js';
import { waitFor } from '../../support/wait-for.js';

const pipeline = compileWorkflow(`
workflow: pipeline
activities:
  go:     { kind: trigger }
  fetch:  { kind: task, input: "{ 'n': input.n }" }
  left:   { kind: task, input: "{ 'v': fetch.output.v }" }
  right:  { kind: task, input: "{ 'v': fetch.output.v }", retry: { attempts: 1 } }
  sum:    { kind: task, input: "{ 'l': left.output, 'r': right.output }" }
  gate:   { kind: hook, signal: open }
transitions:
  go: [fetch, gate]
  fetch: [left, right]
  left: [sum]
  right: [sum]
output: "sum.output"
`);

describe.skipIf(skipBackend)('Client.rerun', () => {
  let store: Store;
  let close: () => Promise<void>;
  let client: Client;
  let worker: Worker;
  const calls: Record<string, number> = {};
  let rightFails = true;

  beforeEach(async () => {
    ({ store, close } = await openTestStore());
    client = new Client(store);
    await client.deploy(pipeline);
    for (const k of Object.keys(calls)) delete calls[k];
    rightFails = true;
    const count = (name: string) => {
      calls[name] = (calls[name] ?? 0) + 1;
    };
    worker = new Worker({
      store,
      concurrency: 4,
      handlers: {
        fetch: async (input) => {
          count('fetch');
          return { v: (input as { n: number }).n * 10 };
        },
        left: async (input) => {
          count('left');
          return (input as { v: number }).v + 1;
        },
        right: async (input) => {
          count('right');
          if (rightFails) throw new Error('right is broken');
          return (input as { v: number }).v + 2;
        },
        sum: async (input) => {
          count('sum');
          const { l, r } = input as { l: number; r: number };
          return l + r;
        },
      },
    });
    await worker.start();
  });
  afterEach(async () => {
    await worker.stop();
    await close();
  });

  it('keeps the results before the activity, reruns it and what follows, and the join waits only for it', async () => {
    const job = await client.start('pipeline', { n: 4 });
    await client.signal(job.id, 'open', null);
    const failed = await client.result(job.id, { wait: true, timeoutMs: 20_000 });
    expect(failed.state).toBe('FAILURE');
    // sum ran once already: left's transition was taken, right's settled not taken.
    expect(calls).toMatchObject({ fetch: 1, left: 1, right: 1, sum: 1 });

    rightFails = false;
    const rerun = await client.rerun(job.id, 'right');
    expect(rerun.again).toEqual(['right', 'sum']);
    expect(rerun.kept).toEqual(['fetch', 'gate', 'go', 'left']);
    const done = await client.result(rerun.job.id, { wait: true, timeoutMs: 20_000 });
    expect(done.state).toBe('SUCCESS');
    // fetch and left kept: their handlers did not run again, their outputs fed right and sum.
    expect(done.output).toBe(41 + 42);
    expect(calls).toMatchObject({ fetch: 1, left: 1, right: 2, sum: 2 });
    const view = await client.status(rerun.job.id);
    expect(view.activities.find((a) => a.id === 'gate')?.state).toBe('Released');

    const oldHistory = await client.history(job.id);
    expect(oldHistory.at(-1)).toMatchObject({
      kind: 'rerun',
      activity: 'right',
      change: { rerun: rerun.job.id },
    });
    const newHistory = await client.history(rerun.job.id);
    expect(newHistory[0]).toMatchObject({
      kind: 'start',
      change: { rerunOf: job.id, from: 'right' },
    });
    // The old job is as it was.
    expect((await client.result(job.id)).state).toBe('FAILURE');
  });

  it('refuses to keep an activity that has not finished, and writes nothing', async () => {
    rightFails = false;
    const job = await client.start('pipeline', { n: 1 });
    // gate waits for its signal: a rerun from right would keep it unfinished.
    await waitFor(
      async () =>
        (await client.status(job.id)).activities.find((a) => a.id === 'sum')?.state === 'Completed',
      'sum to complete',
    );
    const before = await store.countJobs();
    const steps = await store.lastStep();
    const error = await client.rerun(job.id, 'right').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).code).toBe('RERUN_REFUSED');
    expect((error as Error).message).toMatch(/gate, which it keeps, has not finished/);
    expect(await store.countJobs()).toEqual(before);
    expect(await store.lastStep()).toBe(steps);
    await expect(client.rerun(job.id, 'nope')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    // From the trigger, nothing is kept: a fresh run of the same input.
    await client.signal(job.id, 'open', null);
    const again = await client.rerun(job.id, 'go');
    expect(again.kept).toEqual([]);
    await client.signal(again.job.id, 'open', null);
    expect((await client.result(again.job.id, { wait: true, timeoutMs: 20_000 })).output).toBe(23);
  });
});
