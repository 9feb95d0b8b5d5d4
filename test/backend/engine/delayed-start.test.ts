/**
 * A delayed start (`Client.start`'s `delayMs` / `startAt`), through the real Worker: the
 * job exists at once and says when it starts, takes no step before then (a code-first
 * workflow's first decision included), runs after, and its execution timeout counts from
 * its start.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Client } from '../../../src/client/client.js';
import { defineTask, defineWorkflow, Workflow } from '../../../src/durable/index.js';
import { compileWorkflow } from '../../../src/engine/compiler.js';
import type { Store } from '../../../src/store/store.js';
import { Worker } from '../../../src/worker/worker.js';
import { openTestStore } from '../../support/store-under-test.js';

const DELAY_MS = 3000;

/** A trigger, then task `charge`; an hour's execution timeout. */
const LATER = `
workflow: later
timeout: 1h
activities:
  start:  { kind: trigger }
  charge: { kind: task }
transitions:
  start: [charge]
`;

let store: Store;
let close: () => Promise<void>;
let worker: Worker | undefined;

beforeEach(async () => {
  ({ store, close } = await openTestStore());
});
afterEach(async () => {
  await worker?.stop();
  worker = undefined;
  await close();
});

async function startWorker(options: Partial<ConstructorParameters<typeof Worker>[0]>) {
  worker = new Worker({ store, idleMs: 200, ...options });
  await worker.start();
}

describe('a delayed start', () => {
  it('graph: created at once, says when it starts, runs its trigger no sooner', async () => {
    const ran: number[] = [];
    const client = new Client(store);
    await client.deploy(compileWorkflow(LATER));
    await startWorker({ handlers: { charge: async () => ran.push(Date.now()) } });
    const before = Date.now();
    const job = await client.start('later', {}, { delayMs: DELAY_MS });

    const waiting = await client.status(job.id);
    expect(waiting.state).toBe('RUNNING');
    const startAt = Date.parse(waiting.startAt as string);
    expect(startAt).toBeGreaterThanOrEqual(before + DELAY_MS);
    expect(startAt).toBeLessThanOrEqual(job.createdAt + DELAY_MS);
    expect(waiting.waitingFor).toEqual([
      expect.stringMatching(/^waits until \d{4}-.*Z \(in \d+s\) to start$/),
    ]);
    // The execution timeout counts from the start: an hour after it, not after creation.
    expect(waiting.deadline).toBe(new Date(startAt + 3_600_000).toISOString());
    expect(waiting.timeoutMs).toBe(3_600_000);

    const done = await client.result(job.id, { wait: true, timeoutMs: 30_000 });
    expect(done.state).toBe('SUCCESS');
    expect(ran).toHaveLength(1);
    expect(ran[0]).toBeGreaterThanOrEqual(startAt);
    const [first] = await client.history(job.id);
    expect(first?.kind).toBe('start');
    expect(first?.change).toMatchObject({ startAt: new Date(startAt).toISOString() });
  });

  it('code-first: its first decision waits for the start time, with a worker ready to run it', async () => {
    const ran: number[] = [];
    const charge = defineTask('charge', async () => {
      ran.push(Date.now());
      return 'charged';
    });
    const pay = defineWorkflow(
      'pay',
      class extends Workflow {
        async handle() {
          return this.execute(charge);
        }
      },
    );
    const client = new Client(store);
    await startWorker({ workflows: [pay], tasks: [charge] });
    const job = await client.start(pay, [], { startAt: new Date(Date.now() + DELAY_MS) });
    const view = await client.status(job.id);
    // No decision has run: the task is not even scheduled.
    expect(view.activities).toEqual([]);
    expect(view.waitingFor).toEqual([expect.stringMatching(/^waits until .* to start$/)]);
    expect(view.startAt).not.toBeNull();
    const startAt = Date.parse(view.startAt as string);

    const done = await client.result(job.id, { wait: true, timeoutMs: 30_000 });
    expect(done).toMatchObject({ state: 'SUCCESS', output: 'charged' });
    expect(ran[0]).toBeGreaterThanOrEqual(startAt);
    const history = await client.history(job.id);
    expect(history[0]?.change).toMatchObject({ startAt: view.startAt });
    // The first decision ran once the start time had come.
    const decision = history.find((e) => e.kind === 'decision');
    expect(Date.parse(decision?.at as string)).toBeGreaterThanOrEqual(startAt);
  });

  it('a cancel before its start ends it; its first step never runs', async () => {
    const ran: number[] = [];
    const client = new Client(store);
    await client.deploy(compileWorkflow(LATER));
    await startWorker({ handlers: { charge: async () => ran.push(Date.now()) } });
    const job = await client.start('later', {}, { delayMs: DELAY_MS });
    expect((await client.cancel(job.id)).state).toBe('FAILURE');
    const other = await client.start('later', {}, { delayMs: DELAY_MS });
    await client.result(other.id, { wait: true, timeoutMs: 30_000 });
    expect(ran).toHaveLength(1);
    expect((await client.status(job.id)).activities.every((a) => a.state === 'Pending')).toBe(true);
  });
});
