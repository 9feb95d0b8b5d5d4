/**
 * Queues through real Workers: a job started on a queue waits for a slot before its
 * first step; concurrency and per-key concurrency hold across two workers; lower
 * priorities wait; keys take turns; a rate limit spaces starts; a job cancelled while it
 * waits leaves the line; and the errors a start on a queue meets.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Client } from '../../../src/client/client.js';
import { ConflictError } from '../../../src/core/errors.js';
import { defineTask, defineWorkflow, Workflow, withQueue } from '../../../src/durable/index.js';
import { compileWorkflow } from '../../../src/engine/compiler.js';
import { defineQueue } from '../../../src/models/queue-spec.js';
import type { Store } from '../../../src/store/store.js';
import { Worker } from '../../../src/worker/worker.js';
import { openTestStore } from '../../support/store-under-test.js';
import { waitFor } from '../../support/wait-for.js';

/** A trigger, then task `work` with the job input. */
const WORK = `
workflow: work
activities:
  start: { kind: trigger }
  work: { kind: task, input: "input" }
transitions:
  start: [work]
`;

/** Tasks `work` and `more` at once, both with the job input. */
const PAIR = `
workflow: pair
activities:
  start: { kind: trigger }
  work: { kind: task, input: "input" }
  more: { kind: task, input: "input" }
transitions:
  start: [work, more]
`;

interface Run {
  name: string;
  key: string;
  start: number;
  end: number;
}

let store: Store;
let close: () => Promise<void>;
let client: Client;
let workers: Worker[] = [];
let runs: Run[] = [];
let holdMs = 60;
let gate: Promise<void> = Promise.resolve();
let openGate: () => void = () => {};

beforeEach(async () => {
  ({ store, close } = await openTestStore());
  client = new Client(store);
  await client.deploy(compileWorkflow(WORK));
  runs = [];
  holdMs = 60;
  gate = Promise.resolve();
  meetAt = 0;
});
afterEach(async () => {
  openGate();
  await Promise.all(workers.map((w) => w.stop()));
  workers = [];
  await close();
});

async function startWorkers(
  n: number,
  options: Partial<ConstructorParameters<typeof Worker>[0]> = {},
) {
  for (let i = 0; i < n; i++) {
    const worker = new Worker({
      store,
      idleMs: 100,
      handlers: workerHandlers(),
      ...options,
    });
    await worker.start();
    workers.push(worker);
  }
}

/**
 * With {@link expectToMeet}(n), the first n runs wait for each other until n run at once,
 * then every run goes on: a test shows a limit of n used, not only kept, without betting
 * on timing (a loaded machine may otherwise finish each run before the next starts). A
 * limit below n never lets them meet, and the test times out.
 */
let meetAt = 0;
let started = 0;
let meet: () => void = () => {};
let meeting: Promise<void> = Promise.resolve();

function expectToMeet(n: number): void {
  meetAt = n;
  started = 0;
  meeting = new Promise((resolve) => {
    meet = resolve;
  });
}

function meetOthers(): Promise<void> {
  if (meetAt === 0) return Promise.resolve();
  started++;
  if (started >= meetAt) meet();
  return meeting;
}

/** Task `work`: records its run (name, key, start, end), holding `holdMs` after the gate. */
function workerHandlers() {
  return {
    work: async (input: unknown) => {
      const { name, key } = input as { name: string; key: string };
      const run = { name, key, start: Date.now(), end: 0 };
      await meetOthers();
      await gate;
      await new Promise((resolve) => setTimeout(resolve, holdMs));
      run.end = Date.now();
      runs.push(run);
      return name;
    },
  };
}

/** The most runs that overlapped at once, in all and per key. */
function overlaps(all: readonly Run[]) {
  let most = 0;
  let mostPerKey = 0;
  for (const run of all) {
    const during = all.filter((r) => r.start <= run.start && r.end > run.start);
    most = Math.max(most, during.length);
    const sameKey = during.filter((r) => r.key === run.key && r.key !== '');
    mostPerKey = Math.max(mostPerKey, sameKey.length);
  }
  return { most, mostPerKey };
}

async function startOn(queue: string, name: string, key = '', priority?: number) {
  return client.start(
    'work',
    { name, key },
    {
      queue,
      ...(key !== '' && { key }),
      ...(priority !== undefined && { priority }),
    },
  );
}

async function allDone(ids: readonly string[]) {
  for (const id of ids) {
    expect((await client.result(id, { wait: true, timeoutMs: 60_000 })).state).toBe('SUCCESS');
  }
}

describe('queues', () => {
  it('holds concurrency 2 and one per key across two workers', async () => {
    await client.queues.create({ name: 'charges', concurrency: 2, keyConcurrency: 1 });
    expectToMeet(2);
    const ids = [];
    for (const [i, key] of ['a', 'a', 'a', 'b', 'b', 'c', 'c', 'd', 'd', 'd'].entries()) {
      ids.push((await startOn('charges', `j${i}`, key)).id);
    }
    // The first found the line empty and a slot free: admitted at once, in its start. The
    // second is of the same key: it waits, and so does everyone behind it.
    expect(await store.getQueueItem(ids[0] as string)).toMatchObject({
      state: 'running',
      queue: 'charges',
      key: 'a',
    });
    expect(await store.getQueueItem(ids[1] as string)).toMatchObject({
      state: 'waiting',
      key: 'a',
    });
    expect(await store.getQueueItem(ids[3] as string)).toMatchObject({
      state: 'waiting',
      key: 'b',
    });
    await startWorkers(2);
    await allDone(ids);
    expect(runs).toHaveLength(10);
    expect(overlaps(runs)).toEqual({ most: 2, mostPerKey: 1 });
    // Each job's item went with its end.
    expect(await store.queueCounts()).toEqual([]);
  });

  it("a workflow file's queue: a deploy declares it; starts naming none wait in it, keyed by its expression", async () => {
    const file = [
      WORK.replace('workflow: work', 'workflow: keyed'),
      'queue:',
      '  name: per-customer',
      // Not provably cheap: the key runs in the expression sandbox.
      '  key: "$substringBefore(input.key, \':\')"',
      '  priority: 3',
      '  concurrency: 2',
      '  key_concurrency: 1',
    ].join('\n');
    const deployed = await client.deploy(compileWorkflow(file));
    expect(deployed.queue).toMatchObject({
      name: 'per-customer',
      status: 'created',
      source: 'file',
    });
    // A second deploy of the same file stores no new version and leaves the queue as it is.
    const again = await client.deploy(compileWorkflow(file));
    expect([again.status, again.queue?.status]).toEqual(['unchanged', 'unchanged']);
    const ids = [];
    for (const [i, key] of ['a:1', 'a:2', 'a:3', 'b:1', 'b:2', 'c:1'].entries()) {
      ids.push((await client.start('keyed', { name: `k${i}`, key })).id);
    }
    expect(await store.getQueueItem(ids[1] as string)).toMatchObject({
      queue: 'per-customer',
      key: 'a',
      priority: 3,
      state: 'waiting',
    });
    // A schedule's tick waits there too, keyed by the same expression.
    await client.schedules.create({
      name: 'hourly-keyed',
      workflow: 'keyed',
      cron: '0 * * * *',
      input: { name: 'tick', key: 't:1' },
    });
    const [tick] = await client.schedules.backfill('hourly-keyed', {
      from: Date.UTC(2026, 0, 1),
      to: Date.UTC(2026, 0, 1),
    });
    expect(await store.getQueueItem(tick?.id as string)).toMatchObject({
      queue: 'per-customer',
      key: 't',
      priority: 3,
    });
    ids.push(tick?.id as string);
    // A start's own key and priority win over the file's.
    const own = await client.start(
      'keyed',
      { name: 'own', key: 'z:1' },
      { key: 'mine', priority: 0 },
    );
    expect(await store.getQueueItem(own.id)).toMatchObject({ key: 'mine', priority: 0 });
    await startWorkers(2);
    await allDone([...ids, own.id]);
    const seen = overlaps(
      runs
        .filter((r) => r.name !== 'own')
        .map((r) => ({ ...r, key: r.key.split(':')[0] as string })),
    );
    // Never more than the queue's 2 at once, nor two of a key (a loaded machine may run
    // them one by one, so 1 at once is no failure).
    expect(seen.mostPerKey).toBe(1);
    expect(seen.most).toBeLessThanOrEqual(2);
  });

  it("children an await activity starts wait in their workflow file's queue", async () => {
    await client.deploy(
      compileWorkflow(
        `${WORK.replace('workflow: work', 'workflow: solo-work')}queue:\n  name: solo\n  key: input.key\n  concurrency: 1\n`,
      ),
    );
    const children = ['a', 'b', 'c']
      .map(
        (n) =>
          `  ${n}: { kind: await, workflow: solo-work, input: "{ 'name': '${n}', 'key': 'k${n}' }" }`,
      )
      .join('\n');
    await client.deploy(
      compileWorkflow(
        `workflow: fan\nactivities:\n  start: { kind: trigger }\n${children}\ntransitions:\n  start: [a, b, c]\n`,
      ),
    );
    await startWorkers(2);
    const job = await client.start('fan', {});
    expect((await client.result(job.id, { wait: true, timeoutMs: 60_000 })).state).toBe('SUCCESS');
    expect(runs.map((r) => r.name).sort()).toEqual(['a', 'b', 'c']);
    expect(overlaps(runs).most).toBe(1);
    const view = await client.queues.get('solo');
    expect(view.waits.count).toBe(3);
  });

  it('children an await activity starts on a drop queue are charged to its rate, never refused', async () => {
    await client.deploy(
      compileWorkflow(
        `${WORK.replace('workflow: work', 'workflow: hook-work')}queue:\n  name: hooks\n  rate: 2/60s\n  throttle: drop\n`,
      ),
    );
    const children = ['a', 'b', 'c']
      .map((n) => `  ${n}: { kind: await, workflow: hook-work, input: "{ 'name': '${n}' }" }`)
      .join('\n');
    await client.deploy(
      compileWorkflow(
        `workflow: hook-fan\nactivities:\n  start: { kind: trigger }\n${children}\ntransitions:\n  start: [a, b, c]\n`,
      ),
    );
    holdMs = 1;
    await startWorkers(1);
    const job = await client.start('hook-fan', {});
    // Three children over a rate of two: none refused, all run.
    expect((await client.result(job.id, { wait: true, timeoutMs: 60_000 })).state).toBe('SUCCESS');
    expect(runs.map((r) => r.name).sort()).toEqual(['a', 'b', 'c']);
    // They used the rate up: a start of one's own now is refused.
    const refused = await client.start('hook-work', { name: 'd' }).catch((e) => e);
    expect(refused).toBeInstanceOf(ConflictError);
    expect(refused.code).toBe('RATE_LIMITED');
  });

  it('runs lower priorities first, first in first out within one', async () => {
    await client.queues.create({ name: 'one', concurrency: 1 });
    const ids = [];
    for (const [name, priority] of [
      ['late-1', 5],
      ['soon-1', 0],
      ['late-2', 5],
      ['soon-2', 0],
      ['first', -1],
    ] as const) {
      ids.push((await startOn('one', name, '', priority)).id);
    }
    await startWorkers(1);
    await allDone(ids);
    // late-1 found the queue empty and was admitted at once; the rest waited in line.
    expect(runs.map((r) => r.name)).toEqual(['late-1', 'first', 'soon-1', 'soon-2', 'late-2']);
  });

  it('lets keys take turns: a busy key does not starve a quiet one', async () => {
    await client.queues.create({ name: 'fair', concurrency: 1 });
    const ids = [];
    for (let i = 0; i < 8; i++) ids.push((await startOn('fair', `busy-${i}`, 'busy')).id);
    for (let i = 0; i < 2; i++) ids.push((await startOn('fair', `quiet-${i}`, 'quiet')).id);
    holdMs = 20;
    await startWorkers(1);
    await allDone(ids);
    const order = runs.map((r) => r.name);
    // The quiet key's two jobs are among the first four, not after all eight busy ones.
    expect(order.indexOf('quiet-0')).toBeLessThan(4);
    expect(order.indexOf('quiet-1')).toBeLessThan(4);
  });

  it('spaces starts by the rate limit: a burst, then one per interval', async () => {
    await client.queues.create({ name: 'slow', rateLimit: { limit: 4, periodMs: 1000 } });
    holdMs = 1;
    // The worker runs first: a job admitted at its start then runs at once.
    await startWorkers(1);
    const before = Date.now();
    const ids = [];
    for (let i = 0; i < 10; i++) ids.push((await startOn('slow', `r${i}`)).id);
    await allDone(ids);
    const starts = runs.map((r) => r.start).sort((a, b) => a - b);
    // 4 at once, then one every 250 ms: the 10th admitted no sooner than 1.5 s after the
    // first, which was admitted no sooner than its start. (Measured from there, not from the
    // first handler's start, which a loaded machine may delay.)
    expect((starts[9] as number) - before).toBeGreaterThanOrEqual(1500);
  });

  it('spaces one key by its own rate while the other keys go on', async () => {
    await client.queues.create({ name: 'per-key', keyRateLimit: { limit: 2, periodMs: 1000 } });
    holdMs = 1;
    await startWorkers(1);
    const before = Date.now();
    const ids = [];
    for (let i = 0; i < 6; i++) ids.push((await startOn('per-key', `a${i}`, 'a')).id);
    ids.push((await startOn('per-key', 'b0', 'b')).id);
    await allDone(ids);
    const startOf = (name: string) => runs.find((r) => r.name === name)?.start as number;
    // Key a: 2 at once, then one every 500 ms — a5 admitted no sooner than 2 s after a0,
    // which was admitted no sooner than its start. Key b is not held behind a's line.
    expect(startOf('a5') - before).toBeGreaterThanOrEqual(2000);
    expect(startOf('b0')).toBeLessThan(startOf('a5'));
    const view = await client.queues.get('per-key');
    expect(view.waits.count).toBe(7);
  });

  it('throttle drop: a start over the rate is refused with RATE_LIMITED and stores nothing', async () => {
    await client.queues.create({
      name: 'webhooks',
      rateLimit: { limit: 3, periodMs: 60_000 },
      throttle: 'drop',
    });
    holdMs = 1;
    await startWorkers(1);
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await startOn('webhooks', `w${i}`)).id);
    const refused = await startOn('webhooks', 'w3').catch((e) => e);
    expect(refused).toBeInstanceOf(ConflictError);
    expect(refused.code).toBe('RATE_LIMITED');
    expect(refused.message).toMatch(
      /^queue webhooks is at its rate limit \(3 per 60000 ms\) and drops what comes over it: try again from \d{4}-.*Z$/,
    );
    await allDone(ids);
    expect((await store.listJobs({ workflow: 'work' })).length).toBe(3);
    expect(runs.map((r) => r.name).sort()).toEqual(['w0', 'w1', 'w2']);
  });

  it('a job cancelled while it waits leaves the line; its status says where it waits', async () => {
    await client.queues.create({ name: 'one', concurrency: 1 });
    await startWorkers(1);
    gate = new Promise((resolve) => {
      openGate = resolve;
    });
    const first = await startOn('one', 'first');
    await waitFor(() => runs.length === 0 && workers.length > 0, 'the worker');
    const waiting = await startOn('one', 'waiting', 'k', 3);
    await waitFor(
      async () => (await store.getQueueItem(first.id))?.state === 'running',
      'the first admitted',
    );
    const view = await client.status(waiting.id);
    expect(view.waitingFor).toEqual([
      expect.stringMatching(
        /^waits in queue one for a slot \(key k, priority 3\) since \d{4}-.*Z$/,
      ),
    ]);
    expect(view.queue).toMatchObject({ name: 'one', key: 'k', priority: 3, state: 'waiting' });
    await client.cancel(waiting.id);
    expect(await store.getQueueItem(waiting.id)).toBeUndefined();
    expect(await store.countMessages('queued')).toBe(0);
    openGate();
    await allDone([first.id]);
    expect(runs.map((r) => r.name)).toEqual(['first']);
  });

  it('queues code-first jobs too: one at a time on a queue of one', async () => {
    const step = defineTask('queued-step', async (name: string) => {
      const run = { name, key: '', start: Date.now(), end: 0 };
      await new Promise((resolve) => setTimeout(resolve, 80));
      run.end = Date.now();
      runs.push(run);
      return name;
    });
    const flow = defineWorkflow(
      'queued-flow',
      class extends Workflow {
        async handle(name: string) {
          return this.execute(step, name);
        }
      },
    );
    await client.queues.create({ name: 'solo', concurrency: 1 });
    const ids = [];
    for (const name of ['x', 'y', 'z'])
      ids.push((await client.start(flow, [name], { queue: 'solo' })).id);
    await startWorkers(2, { workflows: [flow], tasks: [step] });
    await allDone(ids);
    expect(runs.map((r) => r.name).sort()).toEqual(['x', 'y', 'z']);
    expect(overlaps(runs).most).toBe(1);
  });

  it("code-first children wait in their definition's queue, keyed by their arguments; withQueue sets one call's", async () => {
    const step = defineTask('child-step', async (order: { id: string; customer: string }) => {
      const run = { name: order.id, key: order.customer, start: Date.now(), end: 0 };
      // The first two children wait for each other, so the queue's concurrency of 2 is
      // seen however slow the machine (the vip child is on a queue of its own).
      if (order.id !== 'vip') await meetOthers();
      await new Promise((resolve) => setTimeout(resolve, 60));
      run.end = Date.now();
      runs.push(run);
      return order.id;
    });
    const charge = defineWorkflow(
      'charge-child',
      class extends Workflow {
        async handle(order: { id: string; customer: string }) {
          return this.execute(step, order);
        }
      },
      { queue: { name: 'charges', key: (order) => order.customer, priority: 1 } },
    );
    const batch = defineWorkflow(
      'charge-batch',
      class extends Workflow {
        async handle(customers: string[]) {
          const calls = customers.map(
            (customer, i) => [charge, { id: `o${i}`, customer }] as const,
          );
          // One more on a queue of its own, for this call only.
          await this.dispatch(withQueue(charge, { name: 'vip' }), { id: 'vip', customer: 'v' });
          return this.execute(...calls);
        }
      },
    );
    await client.queues.create({ name: 'charges', concurrency: 2, keyConcurrency: 1 });
    await client.queues.create({ name: 'vip', concurrency: 5 });
    await startWorkers(2, { workflows: [batch, charge], tasks: [step] });
    expectToMeet(2);
    const job = await client.start(batch, [['a', 'a', 'a', 'b', 'b']]);
    expect((await client.result(job.id, { wait: true, timeoutMs: 60_000 })).output).toEqual([
      'o0',
      'o1',
      'o2',
      'o3',
      'o4',
    ]);
    const children = runs.filter((r) => r.name !== 'vip');
    expect(overlaps(children)).toEqual({ most: 2, mostPerKey: 1 });
    expect(runs.map((r) => r.name)).toContain('vip');
    expect((await client.queues.get('charges')).waits.count).toBe(5);
    expect((await client.queues.get('vip')).waits.count).toBe(1);
    // A client start given the definition waits in its queue too.
    const direct = await client.start(charge, { id: 'direct', customer: 'c' });
    expect(await store.getQueueItem(direct.id)).toMatchObject({
      queue: 'charges',
      key: 'c',
      priority: 1,
    });
    await allDone([direct.id]);
  });

  it('task limits: at most 2 attempts of a task across three workers, 1 per worker; a code-first task its own', async () => {
    await startWorkers(3, { taskLimits: { work: { concurrency: 2, workerConcurrency: 1 } } });
    expectToMeet(2);
    const ids = [];
    for (let i = 0; i < 8; i++)
      ids.push((await client.start('work', { name: `t${i}`, key: '' })).id);
    await allDone(ids);
    expect(runs).toHaveLength(8);
    expect(overlaps(runs).most).toBe(2);
    // Per worker: with one worker, one at a time.
    runs = [];
    meetAt = 0;
    for (const worker of workers.splice(0)) await worker.stop();
    await startWorkers(1, { taskLimits: { work: { workerConcurrency: 1 } } });
    const more = [];
    for (let i = 0; i < 4; i++)
      more.push((await client.start('work', { name: `u${i}`, key: '' })).id);
    await allDone(more);
    expect(overlaps(runs).most).toBe(1);
    // A code-first task's definition limits it across workers.
    runs = [];
    const step = defineTask(
      'limited-step',
      async (name: string) => {
        const run = { name, key: '', start: Date.now(), end: 0 };
        await new Promise((resolve) => setTimeout(resolve, 60));
        run.end = Date.now();
        runs.push(run);
        return name;
      },
      { concurrency: 1 },
    );
    const flow = defineWorkflow(
      'limited-flow',
      class extends Workflow {
        async handle(names: string[]) {
          return this.execute(...names.map((n) => [step, n] as const));
        }
      },
    );
    await startWorkers(2, { workflows: [flow], tasks: [step] });
    const job = await client.start(flow, [['x', 'y', 'z', 'w']]);
    expect((await client.result(job.id, { wait: true, timeoutMs: 60_000 })).output).toEqual([
      'x',
      'y',
      'z',
      'w',
    ]);
    expect(overlaps(runs).most).toBe(1);
    expect(() => defineTask('bad', async () => 1, { concurrency: 0 })).toThrow(
      'task bad: concurrency 0 is not a whole number from 1 to 1000000',
    );
  });

  it("task queues: two tasks share a queue's slots across three workers, one attempt per key at once", async () => {
    await client.deploy(compileWorkflow(PAIR));
    await client.queues.create({ name: 'api', concurrency: 2, keyConcurrency: 1 });
    expectToMeet(2);
    const handler = workerHandlers().work;
    const keyOf = (input: unknown) => (input as { key: string }).key;
    await startWorkers(3, {
      handlers: { work: handler, more: handler },
      taskQueues: { work: { name: 'api', key: keyOf }, more: { name: 'api', key: keyOf } },
    });
    const ids = [];
    for (let i = 0; i < 8; i++) {
      ids.push((await client.start('pair', { name: `p${i}`, key: `k${i % 3}` })).id);
    }
    await allDone(ids);
    // 16 attempts of two tasks: never more than 2 at once in all, nor 2 of a key.
    expect(runs).toHaveLength(16);
    const { most, mostPerKey } = overlaps(runs);
    expect(most).toBe(2);
    expect(mostPerKey).toBe(1);
    // Nothing is held once they ended; `weft queues` counts attempts while they run.
    const [api] = await client.queues.list();
    expect([api?.name, api?.attempts, api?.running]).toEqual(['api', 0, 0]);
  });

  it("task queues: attempts wait for the queue's rate; a code-first task names its queue and key", async () => {
    await client.queues.create({ name: 'paced', rateLimit: { limit: 4, periodMs: 1000 } });
    holdMs = 1;
    await startWorkers(1, { taskQueues: { work: 'paced' } });
    const before = Date.now();
    const ids = [];
    for (let i = 0; i < 10; i++) {
      ids.push((await client.start('work', { name: `r${i}`, key: '' })).id);
    }
    await allDone(ids);
    const starts = runs.map((r) => r.start).sort((a, b) => a - b);
    // 4 at once, then one every 250 ms: the 10th no sooner than 1.5 s after the first start.
    expect((starts[9] as number) - before).toBeGreaterThanOrEqual(1500);
    // A code-first task's own queue, keyed by its input: one per customer at once.
    runs = [];
    await client.queues.create({ name: 'cards', keyConcurrency: 1 });
    expectToMeet(2);
    const charge = defineTask(
      'queued-charge',
      async (order: { name: string; customer: string }) => {
        const run = { name: order.name, key: order.customer, start: Date.now(), end: 0 };
        await meetOthers();
        await new Promise((resolve) => setTimeout(resolve, 60));
        run.end = Date.now();
        runs.push(run);
        return order.name;
      },
      { queue: { name: 'cards', key: (order) => order.customer } },
    );
    const flow = defineWorkflow(
      'queued-flow',
      class extends Workflow {
        async handle(orders: { name: string; customer: string }[]) {
          return this.execute(...orders.map((o) => [charge, o] as const));
        }
      },
    );
    await startWorkers(2, { workflows: [flow], tasks: [charge] });
    const orders = ['a', 'b', 'c', 'd', 'e', 'f'].map((name, i) => ({
      name,
      customer: `c${i % 2}`,
    }));
    const job = await client.start(flow, [orders]);
    expect((await client.result(job.id, { wait: true, timeoutMs: 60_000 })).output).toEqual(
      orders.map((o) => o.name),
    );
    expect(runs).toHaveLength(6);
    expect(overlaps(runs).mostPerKey).toBe(1);
    expect(overlaps(runs).most).toBe(2);
    expect(() => defineTask('both', async () => 1, { queue: 'cards', concurrency: 2 })).toThrow(
      'task both: a task in queue cards takes its concurrency from the queue',
    );
    expect(() => defineTask('bad-queue', async () => 1, { queue: ' no' })).toThrow(
      'task bad-queue: name " no" is not a queue name',
    );
  });

  it('refuses a start on an undeclared queue, and a key without one; a worker declares its queues', async () => {
    await expect(client.start('work', {}, { queue: 'nope' })).rejects.toThrow(
      'start: queue "nope" is not declared: create it first (weft queue create nope --concurrency N)',
    );
    await expect(client.start('work', {}, { key: 'k' })).rejects.toThrow(
      'start: a key or priority needs a queue',
    );
    expect(() => defineQueue({ name: 'q', concurrency: 0 })).toThrow(
      'queue q: concurrency 0 is not a whole number from 1 to 1000000',
    );
    await startWorkers(1, { queues: [defineQueue({ name: 'declared', concurrency: 3 })] });
    expect(await client.queues.get('declared')).toMatchObject({
      concurrency: 3,
      source: 'code',
      running: 0,
      waiting: 0,
    });
  });
});
