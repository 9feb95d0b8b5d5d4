/**
 * Stored jobs survive schema changes. test/fixtures/stored-jobs holds a SQLite database
 * and a PostgreSQL dump written by weft at schema version 3 (see its README), with jobs
 * stopped mid-flight — graph and code-first: on a hook, asleep, a task enqueued, a task
 * held by a worker that died, inside a cycle, a parent awaiting its child, a signal
 * buffered, waiting for an event, after several tasks with properties set — and finished
 * jobs. Today's openStore migrates a copy, a Worker with the same code runs everything
 * to its end, and the finished jobs stay exactly as they were.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Client } from '../../../src/client/client.js';
import { SimulatedClock } from '../../../src/core/clock.js';
import { openStore } from '../../../src/store/open-store.js';
import { POSTGRES_MIGRATIONS } from '../../../src/store/postgres/migrations/index.js';
import type { JobRecord } from '../../../src/store/records.js';
import { SQLITE_MIGRATIONS } from '../../../src/store/sqlite/migrations/index.js';
import type { Store } from '../../../src/store/store.js';
import { Worker } from '../../../src/worker/worker.js';
import {
  CYCLE_REST_MS,
  DEAD_LEASE_MS,
  DURABLE_SLEEP_MS,
  DURABLE_TASKS,
  DURABLE_WORKFLOWS,
  FIXTURE_JOBS,
  FIXTURE_NOW,
  FIXTURE_SCHEMA_VERSION,
  GRAPH_SLEEP_MS,
  graphHandlers,
} from '../../fixtures/stored-jobs/workflows.js';
import { backend, skipBackend, type TestStoreLocation } from '../../support/store-under-test.js';
import { copyStoredFixture } from '../../support/stored-fixture.js';
import { waitFor } from '../../support/wait-for.js';

const FIXTURE = join(dirname(fileURLToPath(import.meta.url)), '../../fixtures/stored-jobs');

/** The jobs that had ended when the fixture was written, as they were stored. */
const FINISHED = ['graph-done', 'graph-failed', 'durable-done', 'durable-failed'];

let location: TestStoreLocation;
let clock: SimulatedClock;
let store: Store;
let client: Client;
let worker: Worker | undefined;

beforeEach(async () => {
  if (skipBackend || backend === 'redis') return;
  location = await copyStoredFixture(FIXTURE);
  clock = new SimulatedClock(FIXTURE_NOW);
  store = await openStore(location.url, { clock });
  client = new Client(store, { clock });
});
afterEach(async () => {
  if (skipBackend || backend === 'redis') return;
  await worker?.stop();
  worker = undefined;
  await store.close();
  await location.cleanup();
});

/** Everything a finished job has in the store. */
async function snapshot(id: string) {
  return {
    job: await store.getJob(id),
    activities: await store.listActivities(id),
    counters: Object.fromEntries(await store.listCounters(id)),
  };
}

async function ended(id: string): Promise<JobRecord> {
  let job: JobRecord | undefined;
  await waitFor(
    async () => {
      job = await store.getJob(id);
      return job?.state === 'SUCCESS' || job?.state === 'FAILURE';
    },
    `${id} to end`,
    { timeoutMs: 30_000, intervalMs: 10 },
  );
  return job as JobRecord;
}

async function stateOf(id: string): Promise<string | undefined> {
  return (await store.getJob(id))?.state;
}

// The fixture is a SQLite file and a PostgreSQL dump: there is no Redis one (yet).
describe.skipIf(skipBackend || backend === 'redis')(
  `stored jobs of schema version ${FIXTURE_SCHEMA_VERSION}`,
  () => {
    it('open with the current weft, which migrates them from that version; every job reads back', async () => {
      expect(store.migration.from).toBe(FIXTURE_SCHEMA_VERSION);
      expect(store.migration.to).toBeGreaterThanOrEqual(FIXTURE_SCHEMA_VERSION);
      const all = backend === 'sqlite' ? SQLITE_MIGRATIONS : POSTGRES_MIGRATIONS;
      expect(store.migration.applied).toEqual(
        all.filter((m) => m.version > FIXTURE_SCHEMA_VERSION).map((m) => m.name),
      );
      const jobs = await store.listJobs({ limit: 1000 });
      expect(jobs.map((j) => j.id).sort()).toEqual(
        [...FIXTURE_JOBS.map((j) => j.id), 'graph-parent.invoice'].sort(),
      );
      for (const job of jobs) {
        expect([job.id, job.state]).toEqual([
          job.id,
          FINISHED.includes(job.id) ? expect.stringMatching(/SUCCESS|FAILURE/) : 'RUNNING',
        ]);
      }
      expect(await store.getJob('graph-done')).toMatchObject({
        state: 'SUCCESS',
        output: 'checked',
      });
      expect(await store.getJob('graph-failed')).toMatchObject({
        state: 'FAILURE',
        error: { message: 'activity check failed: the check failed', activity: 'check' },
      });
      expect(await store.getJob('durable-done')).toMatchObject({
        state: 'SUCCESS',
        output: 'judged fine',
      });
      expect(await store.getJob('durable-failed')).toMatchObject({
        state: 'FAILURE',
        error: {
          name: 'TaskFailedError',
          message: 'task fx-judge failed: Error: judged wanting',
          failure: { message: 'judged wanting' },
        },
      });
      // The code-first job's properties as its completed tasks left them.
      const steps = await client.status('durable-steps');
      expect(steps.instance).toMatchObject({ workflow_name: 'fx-steps', state: 'running' });
      // Opening again migrates nothing more.
      const again = await openStore(location.url, { clock });
      try {
        expect(again.migration).toEqual({
          from: store.migration.to,
          to: store.migration.to,
          applied: [],
        });
      } finally {
        await again.close();
      }
    });

    it('run to their end with the same code; finished jobs stay as they were', async () => {
      const before = await Promise.all(FINISHED.map(snapshot));
      // The worker that died still holds its two tasks, their leases running.
      const held = [
        ...(await store.peek('task:fx-charge')),
        ...(await store.peek('task:fx-settle')),
      ];
      expect(held.map((m) => [m.job, m.leaseUntil])).toEqual([
        ['graph-lease', FIXTURE_NOW + DEAD_LEASE_MS],
        ['durable-inflight', FIXTURE_NOW + DEAD_LEASE_MS],
      ]);
      expect(held.every((m) => m.consumer !== null)).toBe(true);

      worker = new Worker({
        store,
        clock,
        idleMs: 20,
        handlers: graphHandlers,
        workflows: DURABLE_WORKFLOWS,
        tasks: DURABLE_TASKS,
        logger: { error() {}, warn() {}, info() {} },
      });
      await worker.start();

      // What needed only a worker: enqueued tasks, the child and its parent, the buffered signal.
      expect(await ended('graph-queued')).toMatchObject({
        state: 'SUCCESS',
        output: { parcel: 'apple+pear' },
      });
      expect(await ended('graph-parent.invoice')).toMatchObject({
        state: 'SUCCESS',
        output: { number: 'INV-7' },
      });
      expect(await ended('graph-parent')).toMatchObject({
        state: 'SUCCESS',
        output: { invoice: { number: 'INV-7' } },
      });
      expect(await ended('graph-early')).toMatchObject({
        state: 'SUCCESS',
        output: { stamp: 'stamped deed', by: 'early bird' },
      });
      expect(await ended('durable-steps')).toMatchObject({
        state: 'SUCCESS',
        output: { stage: 'summed', doubled: [2, 4, 6], total: 12 },
      });
      // The rest waits for a signal, an event or the clock; the dead worker's leases still run.
      for (const id of [
        'graph-hook',
        'graph-sleep',
        'graph-lease',
        'graph-cycle',
        'durable-approval',
        'durable-inflight',
        'durable-nap',
      ]) {
        expect([id, await stateOf(id)]).toEqual([id, 'RUNNING']);
      }
      expect((await store.peek('task:fx-charge'))[0]).toMatchObject({ deliveries: 1 });

      // A signal and an event.
      await client.signal('graph-hook', 'approve', { by: 'ana' });
      await client.sendEvent('durable-approval', 'approved', { by: 'cy' });
      expect(await ended('graph-hook')).toMatchObject({
        state: 'SUCCESS',
        output: { shipped: 'A-1', approvedBy: 'ana' },
      });
      expect(await ended('durable-approval')).toMatchObject({
        state: 'SUCCESS',
        output: { orderId: 'O-9', approvedBy: 'cy', receipt: 'R-O-9-cy' },
      });

      // The leases of the worker that died run out: another worker runs its tasks, with the
      // idempotency keys it had.
      await clock.set(FIXTURE_NOW + DEAD_LEASE_MS);
      expect(await ended('graph-lease')).toMatchObject({
        state: 'SUCCESS',
        output: { charged: 42, key: 'graph-lease:charge:' },
      });
      expect(await ended('durable-inflight')).toMatchObject({
        state: 'SUCCESS',
        output: { result: { settled: 250, key: 'durable-inflight:durable-inflight.0.0:' } },
      });

      // The cycle's rest ends: its third iteration counts to 3 and leaves the loop.
      await clock.set(FIXTURE_NOW + CYCLE_REST_MS);
      expect(await ended('graph-cycle')).toMatchObject({
        state: 'SUCCESS',
        output: { last: 3, dimension: 'again#2' },
      });
      expect(await stateOf('graph-sleep')).toBe('RUNNING');

      // The graph job wakes, then the code-first one.
      await clock.set(FIXTURE_NOW + GRAPH_SLEEP_MS);
      expect(await ended('graph-sleep')).toMatchObject({
        state: 'SUCCESS',
        output: 'good morning, ada',
      });
      expect(await stateOf('durable-nap')).toBe('RUNNING');
      await clock.set(FIXTURE_NOW + DURABLE_SLEEP_MS);
      expect(await ended('durable-nap')).toMatchObject({
        state: 'SUCCESS',
        output: ['BO LIES DOWN', 'BO GETS UP'],
      });

      await worker.stop();
      expect((await store.listJobs({ state: 'RUNNING' })).map((j) => j.id)).toEqual([]);
      expect(await store.countMessages()).toBe(0);
      expect(await store.listDeadLetters()).toEqual([]);
      expect(await store.nextTimerAt()).toBeUndefined();
      expect(await Promise.all(FINISHED.map(snapshot))).toEqual(before);
    });
  },
);
