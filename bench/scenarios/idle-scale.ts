/**
 * Scenario 6: idle scale. N jobs are started through the Client (64 at a time) and park
 * on a hook: the time until all are parked, then the store's size on disk and the
 * resident memory of the worker processes.
 */
import { assertParked, forEachConcurrently, waitUntilDrained } from '../drive.js';
import type { Scenario } from '../scenario.js';
import { perSecond } from '../stats.js';
import { hookWorkflow } from '../workflows.js';

const MB = 1024 * 1024;

/** Scenario 6. */
export const idleScaleScenario: Scenario = {
  number: 6,
  id: 'idle',
  title: 'Idle scale',
  description:
    'N jobs of start → wait (a hook) are started through the Client, 64 at a time, and left parked. Time from the first start until every job is parked (no message left in any stream); then the store size on disk (SQLite: database + WAL; PostgreSQL: pg_database_size) and the resident memory of the processes running workers (SQLite in-process: the driver process itself, which also started the jobs).',
  available: true,
  repetitions: (sizes) => sizes.idleRuns,
  notes: (sizes) => [
    `N = ${sizes.idleJobs.toLocaleString('en-US')}, ${sizes.idleRuns} repetition${sizes.idleRuns === 1 ? '' : 's'} (it is the slowest scenario)`,
  ],
  async run({ target, sizes, log }) {
    const wf = hookWorkflow();
    await target.client.deploy(wf);
    const rssBefore = Math.max(...(await target.workerRss()));
    const ids: string[] = new Array(sizes.idleJobs);
    const t0 = performance.now();
    let last = t0;
    await forEachConcurrently(sizes.idleJobs, sizes.idleStartConcurrency, async (i) => {
      ids[i] = (await target.client.start(wf.workflow, {})).id;
      if (performance.now() - last > 10_000) {
        last = performance.now();
        log(`started ${i + 1} jobs in ${((last - t0) / 1000).toFixed(0)} s`);
      }
    });
    const startedMs = performance.now() - t0;
    await waitUntilDrained(target.store, 30 * 60_000, 100);
    const parkedMs = performance.now() - t0;
    await assertParked(target.client, ids[0] as string, 'wait');
    await assertParked(target.client, ids[ids.length - 1] as string, 'wait');
    const rss = await target.workerRss();
    const bytes = await target.storeBytes();
    return [
      {
        key: 'parked',
        label: `${sizes.idleJobs.toLocaleString('en-US')} jobs, start all until parked`,
        value: parkedMs / 1000,
        unit: 's',
        digits: 1,
      },
      {
        key: 'starts',
        label: 'Client.start calls',
        value: perSecond(sizes.idleJobs, startedMs),
        unit: 'jobs/s',
      },
      {
        key: 'parked.rate',
        label: 'jobs parked',
        value: perSecond(sizes.idleJobs, parkedMs),
        unit: 'jobs/s',
      },
      { key: 'store', label: 'store size', value: bytes / MB, unit: 'MB', digits: 1 },
      {
        key: 'store.per.job',
        label: 'store per parked job',
        value: bytes / sizes.idleJobs,
        unit: 'B',
      },
      {
        key: 'rss.before',
        label: 'worker RSS idle, before (max of processes)',
        value: rssBefore / MB,
        unit: 'MB',
      },
      {
        key: 'rss',
        label: 'worker RSS with all parked (max of processes)',
        value: Math.max(...rss) / MB,
        unit: 'MB',
      },
    ];
  },
};
