/**
 * Cron schedules through real Workers on a simulated clock: each tick starts one job,
 * named by its tick, with the schedule's input, however many workers fire it; the overlap
 * policies with a job that is still running; the catch-up window after time with no
 * worker; pause and resume; backfill; a worker's declared schedules; and the errors a user
 * meets — an unknown workflow, an input the workflow refuses.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Client } from '../../../src/client/client.js';
import { SimulatedClock } from '../../../src/core/clock.js';
import { defineWorkflow, Workflow } from '../../../src/durable/index.js';
import { compileWorkflow } from '../../../src/engine/compiler.js';
import { defineSchedule } from '../../../src/models/schedule-spec.js';
import type { Store } from '../../../src/store/store.js';
import { Worker } from '../../../src/worker/worker.js';
import type { WorkerLogger } from '../../../src/worker/worker-options.js';
import { openTestStore } from '../../support/store-under-test.js';
import { waitFor } from '../../support/wait-for.js';

const T0 = Date.UTC(2026, 0, 1);
const MINUTE = 60_000;

/** A trigger, then task `build`; its input needs a region. */
const REPORT = `
workflow: report
input:
  type: object
  required: [region]
  properties: { region: { type: string } }
activities:
  start: { kind: trigger }
  build: { kind: task, input: "{ 'region': input.region }" }
transitions:
  start: [build]
`;

let store: Store;
let close: () => Promise<void>;
let clock: SimulatedClock;
let client: Client;
let workers: Worker[] = [];
let built: string[] = [];
let gate: Promise<void> = Promise.resolve();
let openGate: () => void = () => {};
const warnings: string[] = [];

const logger: WorkerLogger = {
  error: (message) => warnings.push(message),
  warn: (message) => warnings.push(message),
  info: () => {},
};

beforeEach(async () => {
  clock = new SimulatedClock(T0);
  ({ store, close } = await openTestStore({ clock }));
  client = new Client(store, { clock });
  await client.deploy(compileWorkflow(REPORT));
  built = [];
  warnings.length = 0;
  gate = Promise.resolve();
});
afterEach(async () => {
  openGate();
  await Promise.all(workers.map((w) => w.stop()));
  workers = [];
  await close();
});

/** A worker on the simulated clock; a lease long enough that advancing time never ends it. */
async function startWorker(options: Partial<ConstructorParameters<typeof Worker>[0]> = {}) {
  const worker = new Worker({
    store,
    clock,
    idleMs: 25,
    leaseMs: 24 * 3_600_000,
    logger,
    handlers: {
      build: async (input: unknown) => {
        built.push((input as { region: string }).region);
        await gate;
        return 'built';
      },
    },
    ...options,
  });
  await worker.start();
  workers.push(worker);
  return worker;
}

/** Handlers of `build` wait until {@link openGate}. */
function closeGate() {
  gate = new Promise((resolve) => {
    openGate = resolve;
  });
}

const jobsOf = async (schedule: string) =>
  (await store.listJobs({}))
    .filter((j) => j.id.startsWith(`${schedule}@`))
    .map((j) => j.id)
    .sort();

const tickId = (schedule: string, at: number) => `${schedule}@${new Date(at).toISOString()}`;

async function settle(schedule: string, count: number) {
  await waitFor(
    async () => (await jobsOf(schedule)).length >= count,
    `${count} jobs of ${schedule}`,
  );
  await waitFor(
    async () => ((await store.getSchedule(schedule))?.nextAt ?? 0) > clock.now(),
    `${schedule} handled its ticks`,
  );
}

describe('schedules', () => {
  it('starts one job per tick, named by the tick, with the schedule input, across three workers', async () => {
    const created = await client.schedules.create({
      name: 'hourly',
      workflow: 'report',
      cron: '* * * * *',
      input: { region: 'eu' },
    });
    expect(created).toMatchObject({
      status: 'created',
      nextAt: T0 + MINUTE,
      runs: 0,
      paused: false,
      source: 'api',
    });
    expect(created.upcoming).toEqual([1, 2, 3, 4, 5].map((i) => T0 + i * MINUTE));
    await Promise.all([startWorker(), startWorker(), startWorker()]);
    for (let tick = 1; tick <= 5; tick++) {
      await clock.advance(MINUTE);
      await settle('hourly', tick);
      // The default overlap policy skips a tick while the last job runs: let it end.
      await client.result(tickId('hourly', T0 + tick * MINUTE), { wait: true, timeoutMs: 20_000 });
    }
    expect(await jobsOf('hourly')).toEqual(
      [1, 2, 3, 4, 5].map((i) => tickId('hourly', T0 + i * MINUTE)),
    );
    for (const id of await jobsOf('hourly')) {
      const job = await client.result(id, { wait: true, timeoutMs: 20_000 });
      expect(job).toMatchObject({ state: 'SUCCESS', input: { region: 'eu' } });
    }
    expect(built).toEqual(['eu', 'eu', 'eu', 'eu', 'eu']);
    expect(await client.schedules.get('hourly')).toMatchObject({
      runs: 5,
      skipped: 0,
      lastTickAt: T0 + 5 * MINUTE,
      lastJob: tickId('hourly', T0 + 5 * MINUTE),
      nextAt: T0 + 6 * MINUTE,
    });
  });

  it('skip (the default): a tick that comes while the last job runs starts nothing', async () => {
    await client.schedules.create({
      name: 's',
      workflow: 'report',
      cron: '* * * * *',
      input: { region: 'eu' },
    });
    await startWorker();
    closeGate();
    await clock.advance(MINUTE);
    await settle('s', 1);
    await waitFor(() => built.length === 1, 'the first job running');
    await clock.advance(MINUTE);
    await waitFor(async () => (await store.getSchedule('s'))?.skipped === 1, 'a skipped tick');
    openGate();
    await client.result(tickId('s', T0 + MINUTE), { wait: true, timeoutMs: 20_000 });
    await clock.advance(MINUTE);
    await settle('s', 2);
    expect(await jobsOf('s')).toEqual([tickId('s', T0 + MINUTE), tickId('s', T0 + 3 * MINUTE)]);
  });

  it('buffer_one: holds one tick while the job runs and starts it when the job ends', async () => {
    await client.schedules.create({
      name: 'b',
      workflow: 'report',
      cron: '* * * * *',
      input: { region: 'eu' },
      overlap: 'buffer_one',
    });
    await startWorker();
    closeGate();
    await clock.advance(MINUTE);
    await settle('b', 1);
    await clock.advance(MINUTE);
    await waitFor(
      async () => (await store.getSchedule('b'))?.bufferedAt === T0 + 2 * MINUTE,
      'a held tick',
    );
    await clock.advance(MINUTE);
    await waitFor(
      async () => (await store.getSchedule('b'))?.bufferedAt === T0 + 3 * MINUTE,
      'the newest tick held',
    );
    expect(await jobsOf('b')).toHaveLength(1);
    openGate();
    await waitFor(async () => (await jobsOf('b')).length === 2, 'the held tick started');
    expect(await jobsOf('b')).toEqual([tickId('b', T0 + MINUTE), tickId('b', T0 + 3 * MINUTE)]);
    expect(await store.getSchedule('b')).toMatchObject({ bufferedAt: null, skipped: 1, runs: 2 });
  });

  it('cancel_other: cancels the running job and starts the new tick', async () => {
    await client.schedules.create({
      name: 'c',
      workflow: 'report',
      cron: '* * * * *',
      input: { region: 'eu' },
      overlap: 'cancel_other',
    });
    await startWorker();
    closeGate();
    await clock.advance(MINUTE);
    await settle('c', 1);
    await clock.advance(MINUTE);
    await settle('c', 2);
    expect(await client.status(tickId('c', T0 + MINUTE))).toMatchObject({
      state: 'FAILURE',
      error: { code: 'CANCELLED' },
    });
    expect((await client.status(tickId('c', T0 + 2 * MINUTE))).state).toBe('RUNNING');
  });

  it('allow_all with a catch-up window: after 30 minutes without a worker, starts the ticks of the last 10', async () => {
    await client.schedules.create({
      name: 'all',
      workflow: 'report',
      cron: '* * * * *',
      input: { region: 'eu' },
      overlap: 'allow_all',
      catchupWindowMs: 10 * MINUTE,
    });
    await client.schedules.create({
      name: 'one',
      workflow: 'report',
      cron: '* * * * *',
      input: { region: 'us' },
    });
    await clock.advance(30 * MINUTE);
    await startWorker();
    await settle('all', 11);
    await settle('one', 1);
    expect(await jobsOf('all')).toEqual(
      Array.from({ length: 11 }, (_, i) => tickId('all', T0 + (20 + i) * MINUTE)),
    );
    expect(await jobsOf('one')).toEqual([tickId('one', T0 + 30 * MINUTE)]);
    expect(await store.getSchedule('all')).toMatchObject({ runs: 11, skipped: 19 });
    expect(await store.getSchedule('one')).toMatchObject({ runs: 1, skipped: 29 });
  });

  it('pause starts nothing; resume waits for the next tick; backfill starts the ticks of a range once', async () => {
    await client.schedules.create({
      name: 'p',
      workflow: 'report',
      cron: '* * * * *',
      input: { region: 'eu' },
    });
    await startWorker();
    const paused = await client.schedules.pause('p');
    expect(paused).toMatchObject({ paused: true, upcoming: [] });
    await clock.advance(3 * MINUTE + 1000);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await jobsOf('p')).toEqual([]);
    const resumed = await client.schedules.resume('p');
    expect(resumed).toMatchObject({ paused: false, nextAt: T0 + 4 * MINUTE, skipped: 3 });
    await clock.advance(MINUTE);
    await settle('p', 1);
    expect(await jobsOf('p')).toEqual([tickId('p', T0 + 4 * MINUTE)]);

    const filled = await client.schedules.backfill('p', { from: T0 + MINUTE, to: T0 + 4 * MINUTE });
    expect(filled.map((j) => [j.id, j.created])).toEqual([
      [tickId('p', T0 + MINUTE), true],
      [tickId('p', T0 + 2 * MINUTE), true],
      [tickId('p', T0 + 3 * MINUTE), true],
      [tickId('p', T0 + 4 * MINUTE), false],
    ]);
    const again = await client.schedules.backfill('p', { from: T0 + MINUTE, to: T0 + 4 * MINUTE });
    expect(again.every((j) => !j.created)).toBe(true);
    expect(await jobsOf('p')).toHaveLength(4);
    await expect(
      client.schedules.backfill('p', { from: T0, to: T0 + 2000 * MINUTE }),
    ).rejects.toThrow(
      'schedule p backfill: the range holds more than 1000 ticks; backfill it in parts',
    );
    await client.schedules.delete('p');
    await expect(client.schedules.get('p')).rejects.toThrow('schedule "p" not found');
    expect(await jobsOf('p')).toHaveLength(4);
  });

  it('a worker declares its schedules: unchanged keeps where they stand, a new expression moves the next tick', async () => {
    const nightly = defineSchedule({
      name: 'nightly',
      workflow: 'report',
      cron: '0 3 * * *',
      timezone: 'Europe/Berlin',
      input: { region: 'eu' },
    });
    const first = await startWorker({ schedules: [nightly] });
    expect(await store.getSchedule('nightly')).toMatchObject({
      source: 'code',
      nextAt: Date.UTC(2026, 0, 1, 2, 0), // 03:00 CET
    });
    await client.schedules.pause('nightly');
    await first.stop();
    workers = [];
    await startWorker({ schedules: [nightly] });
    expect(await store.getSchedule('nightly')).toMatchObject({ paused: true });
    await startWorker({ schedules: [{ ...nightly, cron: '0 4 * * *' }] });
    expect(await store.getSchedule('nightly')).toMatchObject({
      paused: true,
      cron: '0 4 * * *',
      nextAt: Date.UTC(2026, 0, 1, 3, 0),
    });
  });

  it('crosses daylight saving in Berlin as documented: the skipped 02:30 runs at 03:00, the repeated one once', async () => {
    const DAY = 86_400_000;
    await clock.set(Date.UTC(2026, 2, 27, 12, 0));
    await client.schedules.create({
      name: 'dst',
      workflow: 'report',
      cron: '30 2 * * *',
      timezone: 'Europe/Berlin',
      input: { region: 'eu' },
      // The clock moves a day at a time: each tick is half a day old when it fires.
      catchupWindowMs: DAY,
      overlap: 'allow_all',
    });
    await startWorker();
    for (let day = 1; day <= 3; day++) {
      await clock.advance(DAY);
      await settle('dst', day);
    }
    await clock.set(Date.UTC(2026, 9, 23, 12, 0));
    // Move the schedule's next tick to autumn, as a worker that was away all summer would find it.
    const spring = await store.getSchedule('dst');
    await store.putSchedule({
      ...(spring as NonNullable<typeof spring>),
      nextAt: Date.UTC(2026, 9, 24, 0, 30),
    });
    for (let day = 1; day <= 3; day++) {
      await clock.advance(DAY);
      await settle('dst', 3 + day);
    }
    expect(await jobsOf('dst')).toEqual([
      'dst@2026-03-28T01:30:00.000Z', // 02:30 CET
      'dst@2026-03-29T01:00:00.000Z', // 02:30 does not exist: 03:00 CEST
      'dst@2026-03-30T00:30:00.000Z', // 02:30 CEST
      'dst@2026-10-24T00:30:00.000Z', // 02:30 CEST
      'dst@2026-10-25T00:30:00.000Z', // the first 02:30 of the two
      'dst@2026-10-26T01:30:00.000Z', // 02:30 CET
    ]);
  });

  it('runs code-first workflows too', async () => {
    const greet = defineWorkflow(
      'greet',
      class extends Workflow {
        async handle(name: string) {
          return `hello ${name}`;
        }
      },
    );
    await startWorker({ workflows: [greet] });
    await client.schedules.create({
      name: 'g',
      workflow: greet,
      cron: '* * * * *',
      input: ['ada'],
    });
    await clock.advance(MINUTE);
    await settle('g', 1);
    const done = await client.result(tickId('g', T0 + MINUTE), { wait: true, timeoutMs: 20_000 });
    expect(done).toMatchObject({ state: 'SUCCESS', output: 'hello ada' });
  });

  it('refuses an unknown workflow and a bad spec; a tick its workflow refuses is the schedule error', async () => {
    const refusal = (spec: Parameters<typeof client.schedules.create>[0]) =>
      client.schedules.create(spec).then(
        () => 'created',
        (e: Error) => `${e.constructor.name}: ${e.message}`,
      );
    expect(await refusal({ name: 'x', workflow: 'reprot', cron: '* * * * *' })).toBe(
      'ValidationError: schedule x: workflow "reprot" is not known to this store: deploy it (weft deploy), or start a worker that registers it, first',
    );
    expect(await refusal({ name: 'x@y', workflow: 'report', cron: '* * * * *' })).toMatch(
      /^ValidationError: schedule x@y: name "x@y" is not a schedule name/,
    );
    expect(
      await refusal({
        name: 'x',
        workflow: 'report',
        cron: '* * * * *',
        overlap: 'never' as never,
      }),
    ).toBe(
      'ValidationError: schedule x: overlap "never" is not one of skip, buffer_one, allow_all, cancel_other',
    );
    expect(await refusal({ name: 'x', workflow: 'report', cron: 'daily' })).toMatch(
      /^ValidationError: schedule x: cron expression "daily" is not valid/,
    );
    expect(await store.listSchedules()).toEqual([]);

    await client.schedules.create({
      name: 'bad',
      workflow: 'report',
      cron: '* * * * *',
      input: { area: 'eu' },
    });
    await startWorker();
    await clock.advance(MINUTE);
    await waitFor(
      async () => (await store.getSchedule('bad'))?.lastError !== null,
      'the schedule error',
    );
    const bad = await client.schedules.get('bad');
    expect(bad.lastError).toMatch(/^tick 2026-01-01T00:01:00.000Z: .*region/);
    expect(bad).toMatchObject({ runs: 0, skipped: 1, nextAt: T0 + 2 * MINUTE });
    expect(await jobsOf('bad')).toEqual([]);
    expect(warnings.some((w) => w.startsWith('schedule bad: tick 2026-01-01T00:01:00.000Z'))).toBe(
      true,
    );

    // Declared in code for a workflow the store does not know: each tick says so, no job.
    await startWorker({
      schedules: [defineSchedule({ name: 'ghost', workflow: 'reprot', cron: '* * * * *' })],
    });
    await clock.advance(MINUTE);
    await waitFor(
      async () => (await store.getSchedule('ghost'))?.lastError !== null,
      'the ghost error',
    );
    expect((await store.getSchedule('ghost'))?.lastError).toBe(
      'tick 2026-01-01T00:02:00.000Z: workflow "reprot" is not known to this store: deploy it, or start a worker that registers it',
    );
    expect(await jobsOf('ghost')).toEqual([]);
  });
});
