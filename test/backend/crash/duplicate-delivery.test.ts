/**
 * Duplicate delivery: the same message delivered a second time changes nothing. A chaos
 * job (trigger, fan-out and join, a retried task, a hook released by a signal, a skipped
 * branch, a sleep, an awaited child job) runs one delivery at a time; after every step,
 * an exact copy of every delivery run so far — engine `enter`s, task messages (whose
 * results then reach Leg2 again), signal, wake and child messages — is delivered again,
 * and the store must read the same afterwards: job states and outputs, collation keys,
 * semaphores and every other counter, activity records, pending messages and timers.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Client } from '../../../src/client/client.js';
import { SimulatedClock } from '../../../src/core/clock.js';
import { createCollationLayout, formatCollationKey } from '../../../src/core/collation.js';
import { signalKey } from '../../../src/engine/signal-key.js';
import type { Store } from '../../../src/store/store.js';
import { HandlerLog } from '../../support/chaos-handlers.js';
import { ReplayStepper } from '../../support/chaos-replay-stepper.js';
import { graphWorkload } from '../../support/chaos-workloads.js';
import { openTestStore } from '../../support/store-under-test.js';

let clock: SimulatedClock;
let store: Store;
let close: () => Promise<void>;
let logDir: string;
beforeEach(async () => {
  clock = new SimulatedClock(Date.now());
  ({ store, close } = await openTestStore({ clock }));
  logDir = mkdtempSync(join(tmpdir(), 'weft-dup-'));
});
afterEach(async () => {
  await close();
  rmSync(logDir, { recursive: true, force: true });
});

/** Everything a duplicate could change, for every job in the store. */
async function snapshot(): Promise<unknown> {
  const jobs = await store.listJobs({ limit: 1000 });
  const streams = ['engine', 'task:chaos-work', 'task:chaos-flaky', 'task:chaos-ring'];
  return {
    jobs: await Promise.all(
      jobs.map(async (job) => ({
        job,
        counters: Object.fromEntries(
          [...(await store.listCounters(job.id))].map(([k, v]) => [k, v.toString()]),
        ),
        activities: (await store.listActivities(job.id)).sort((a, b) =>
          `${a.activity}/${a.dimension}`.localeCompare(`${b.activity}/${b.dimension}`),
        ),
      })),
    ),
    messages: await Promise.all(
      streams.map(async (s) => (await store.peek(s, 1000)).map((m) => [m.id, m.payload])),
    ),
    nextTimer: await store.nextTimerAt(),
    deadLetters: await store.listDeadLetters(),
  };
}

async function runWithDuplicates(n: number) {
  const client = new Client(store, { clock });
  await graphWorkload.deploy(client);
  const id = `dup-${n}`;
  await graphWorkload.start(client, n, id);
  const log = new HandlerLog(join(logDir, 'handlers.log'));
  const stepper = new ReplayStepper(store, graphWorkload.handlers(log), clock);
  const kinds = new Set<string>();
  let replays = 0;
  let steps = 0;
  while (await stepper.step()) {
    steps++;
    // Moving the clock makes any write a duplicate did show up in an `updatedAt`.
    await clock.advance(1);
    const before = await snapshot();
    for (const delivery of stepper.deliveries) {
      const result = await stepper.replay(delivery);
      expect(result.status, JSON.stringify(delivery)).not.toBe('ran');
      const payload = delivery.payload as { k?: string; task?: string };
      kinds.add(payload.k ?? `task ${payload.task}`);
      replays++;
    }
    expect(await snapshot()).toEqual(before);
    expect(steps).toBeLessThan(500);
  }
  return { id, kinds, replays, steps };
}

describe('duplicate delivery', () => {
  it('a copy of any delivery, sent again at any point of a run, changes nothing', async () => {
    // n = 3: odd (the even branch is skipped) and a multiple of 3 (`right` fails attempt 1).
    const { id, kinds, replays } = await runWithDuplicates(3);
    expect([...kinds].sort()).toEqual([
      'child',
      'enter',
      'signal',
      'task chaos-flaky',
      'task chaos-ring',
      'task chaos-work',
      'wake',
    ]);
    expect(replays).toBeGreaterThan(100);
    const job = await new Client(store, { clock }).result(id);
    expect(job.state).toBe('SUCCESS');
    expect(job.output).toEqual(graphWorkload.expectedOutput('chaos', { n: 3 }));
    const layout = createCollationLayout(graphWorkload.graph('chaos')?.order ?? []);
    const key = await store.getCounter({ job: id, field: 'collation' });
    expect(formatCollationKey(layout, key ?? 0n)).toBe(
      graphWorkload.expectedKey('chaos', { n: 3 }),
    );
  });

  it('a signal sent again after its hook was released changes nothing', async () => {
    const { id } = await runWithDuplicates(4);
    const before = await snapshot();
    expect((await store.deliverSignal(signalKey(id, 'bell'), { n: 99 })).status).toBe('buffered');
    expect(await snapshot()).toEqual(before);
    expect((await store.getJob(id))?.output).toEqual({ n: 4, bell: 4, child: 4, done: 4 });
  });
});
