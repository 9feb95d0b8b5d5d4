/**
 * Crash safety with real OS processes: graph jobs run across worker processes while the
 * driver SIGKILLs a random worker every ~300 ms and starts a new one. Afterwards every
 * job has ended once, in SUCCESS, with the right output and collation key; every
 * semaphore shows each leg ran exactly once; every handler re-run is explained by a kill;
 * and no message, dead letter or timer is left. (test/support/chaos-*.ts; the full
 * 1,000-job run is `npm run chaos`, or this file with WEFT_CHAOS_FULL=1.)
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { renderChaosReport } from '../../support/chaos-report.js';
import { type ChaosResult, runChaos } from '../../support/chaos-run.js';
import { CHAOS_WORKLOADS } from '../../support/chaos-workloads.js';
import { backend, freshStoreUrl, type TestStoreLocation } from '../../support/store-under-test.js';

let location: TestStoreLocation;
beforeEach(async () => {
  location = await freshStoreUrl();
});
afterEach(async () => location.cleanup());

function expectClean(result: ChaosResult, jobs: number): void {
  const report = renderChaosReport(result);
  expect(result.violations, report).toEqual([]);
  const f = result.facts;
  expect(f.jobsStarted).toBe(jobs);
  expect(f.jobsEnded).toBe(jobs);
  // Job i runs workload i % 4: graph jobs (one awaited child each), code-first, sagas, spreads.
  expect(f.childJobsEnded).toBe(Math.ceil(jobs / CHAOS_WORKLOADS.length));
  expect(f.jobsLost + f.jobsFailed + f.jobsEndedTwice + f.stepsRunTwice).toBe(0);
  expect(f.rerunsUnaccounted).toBe(0);
  expect(f.handlerReruns).toBe(f.rerunsKilledMidHandler + f.rerunsKilledBeforeCommit);
  expect(f.messagesLeft + f.deadLetters + f.timersLeft).toBe(0);
  // The run really was chaotic, and the checks really looked.
  expect(result.kills).toBeGreaterThan(0);
  expect(f.semaphoresChecked).toBeGreaterThan(jobs * 5);
  // Every third graph job's flaky task failed once and waited its backoff: checked.
  expect(f.retriesTimed).toBeGreaterThan(0);
  expect(f.retriesEarly).toBe(0);
}

describe('chaos: workers SIGKILLed at random while jobs run', () => {
  it('150 jobs, 3 workers, 40 kills ~300 ms apart: nothing lost, nothing run twice', async () => {
    // The kills stop after 40, so a slow or busy machine makes the run longer, not red.
    const result = await runChaos({
      url: location.url,
      jobs: 150,
      workers: 3,
      killEveryMs: 300,
      maxKills: 40,
      deadlineMs: 240_000,
    });
    expectClean(result, 150);
  }, 300_000);

  it.runIf(backend === 'postgres')(
    '120 jobs, 3 workers, SIGKILLs and PostgreSQL restarts every 5–10 s: nothing lost, nothing run twice',
    async () => {
      const { restartablePostgres } = await import('../../support/postgres-server.js');
      const server = await restartablePostgres();
      try {
        const result = await runChaos({
          url: server.url,
          jobs: 120,
          workers: 3,
          killEveryMs: 500,
          maxKills: 30,
          deadlineMs: 300_000,
          storeRestarts: {
            minMs: 5000,
            maxMs: 10_000,
            max: 3,
            restart: async () => {
              await server.stop();
              await server.start();
            },
          },
        });
        expectClean(result, 120);
        expect(result.storeRestarts).toBeGreaterThan(0);
      } finally {
        await server.dispose();
      }
    },
    400_000,
  );

  it.runIf(backend === 'redis')(
    '60 jobs, 3 workers, SIGKILLs of workers and of redis-server (appendfsync always): no committed step lost, nothing run twice',
    async () => {
      const { killRedisServer, startRedisServer, stopRedisServer } = await import(
        '../../support/redis-server.js'
      );
      let server = await startRedisServer();
      const { port, dir } = server;
      try {
        const result = await runChaos({
          url: `redis://127.0.0.1:${port}/0`,
          jobs: 60,
          workers: 3,
          killEveryMs: 500,
          maxKills: 15,
          deadlineMs: 240_000,
          storeRestarts: {
            minMs: 2000,
            maxMs: 4000,
            max: 3,
            // A SIGKILL, not a shutdown: what it had not written to its append-only file
            // is gone; with appendfsync always that is nothing a commit was answered for.
            restart: async () => {
              const killed = server;
              const exited = new Promise((resolve) => killed.child.once('exit', resolve));
              killRedisServer(killed);
              await exited;
              server = await startRedisServer({ port, dir });
            },
          },
        });
        expectClean(result, 60);
        expect(result.storeRestarts).toBeGreaterThan(0);
      } finally {
        stopRedisServer(server);
      }
    },
    300_000,
  );

  it.runIf(process.env.WEFT_CHAOS_FULL === '1')(
    '1,000 jobs, 4 workers, a kill every ~300 ms (WEFT_CHAOS_FULL=1)',
    async () => {
      const result = await runChaos({
        url: location.url,
        jobs: 1000,
        workers: 4,
        killEveryMs: 300,
      });
      expectClean(result, 1000);
    },
    900_000,
  );
});
