// Testing workflows with a simulated clock (docs/testing.md): a workflow that waits days
// runs to its end in milliseconds, because the test moves time forward by hand. Run it
// with
//
//   npx vitest run examples/testing.test.ts
//
// Each test uses a fresh SQLite file (or the store WEFT_STORE names).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  Client,
  defineHandlers,
  defineTask,
  defineWorkflow,
  openStore,
  SimulatedClock,
  type Store,
  Worker,
  Workflow,
  workflow,
} from 'weft-engine';

const DAY = 24 * 60 * 60 * 1000;

// The code under test: an approval that reminds the approver after a day and gives up
// after two, and a graph workflow that charges an invoice after 30 days' grace.
const reminders: string[] = [];
const remind = defineTask('remind', async (input: { to: string }) => {
  reminders.push(input.to);
  return { sent: true };
});

const approval = defineWorkflow(
  'approval',
  class extends Workflow {
    async handle(request: { to: string }) {
      const first = await this.waitForEvent<{ by: string }>('approved', { timeoutMs: DAY });
      if (first) return { status: 'approved', by: first.by };
      await this.execute(remind, { to: request.to });
      const second = await this.waitForEvent<{ by: string }>('approved', { timeoutMs: DAY });
      return second ? { status: 'approved', by: second.by } : { status: 'expired' };
    }
  },
);

const invoice = workflow('invoice')
  .trigger('start')
  .sleep('grace', { duration: '30d' })
  .task('charge', { input: "{ 'amount': input.amount }" })
  .transition('start', 'grace')
  .transition('grace', 'charge')
  .output('charge.output')
  .compile();

// One store, worker and client per test, all on the same simulated clock.
let dir: string;
let clock: SimulatedClock;
let store: Store;
let worker: Worker;
let client: Client;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'weft-test-'));
  clock = new SimulatedClock(Date.UTC(2026, 0, 1));
  store = await openStore(process.env.WEFT_STORE ?? `sqlite:${join(dir, 'weft.db')}`, { clock });
  worker = new Worker({
    store,
    clock,
    workflows: [approval],
    tasks: [remind],
    handlers: defineHandlers({
      charge: async (input: { amount: number }) => ({ charged: input.amount }),
    }),
    idleMs: 10, // look for due timers often: time jumps without notice
  });
  await worker.start();
  client = new Client(store, { clock });
  reminders.length = 0;
});

afterEach(async () => {
  await worker.stop();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * Waits until a job has set a timer later than the clock's time (it has reached a wait)
 * and returns when the timer is due.
 */
async function nextTimer(): Promise<number> {
  for (;;) {
    const at = await store.nextTimerAt();
    if (at !== undefined && at > clock.now()) return at;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('approval', () => {
  it('ends at once when approved on the first day', async () => {
    const job = await client.start(approval, { to: 'ana@example.com' });
    await nextTimer(); // the job is waiting for the event
    await client.sendEvent(job.id, 'approved', { by: 'bo' });
    const done = await client.result(job, { wait: true });
    expect(done.output).toEqual({ status: 'approved', by: 'bo' });
    expect(reminders).toEqual([]);
  });

  it('reminds after a day and is approved on the second', async () => {
    const job = await client.start(approval, { to: 'ana@example.com' });
    await clock.set(await nextTimer()); // a day passes
    await nextTimer(); // the reminder went out and the second wait began
    expect(reminders).toEqual(['ana@example.com']);
    await client.sendEvent(job.id, 'approved', { by: 'cy' });
    const done = await client.result(job, { wait: true });
    expect(done.output).toEqual({ status: 'approved', by: 'cy' });
  });

  it('expires after two days without approval', async () => {
    const started = clock.now();
    const job = await client.start(approval, { to: 'ana@example.com' });
    await clock.set(await nextTimer()); // the first day
    await clock.set(await nextTimer()); // the second day
    const done = await client.result(job, { wait: true });
    expect(done.output).toEqual({ status: 'expired' });
    expect(done.finishedAt).toBe(started + 2 * DAY);
  });
});

describe('invoice', () => {
  it('charges after 30 days of grace', async () => {
    await client.deploy(invoice);
    const job = await client.start('invoice', { amount: 42 });
    const due = await nextTimer();
    expect(due - clock.now()).toBe(30 * DAY);
    await clock.set(due);
    const done = await client.result(job.id, { wait: true });
    expect(done.state).toBe('SUCCESS');
    expect(done.output).toEqual({ charged: 42 });
  });
});
