/**
 * The README's queue and schedule commands, word for word, each its own process: the
 * queue is created and a job started on it waits for a slot until a worker admits and
 * runs it; the schedule is created with its next five runs at 03:00 Berlin time, and the
 * worker that fires it runs until stopped, the schedule waiting for its tick.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { freshStoreUrl } from '../../support/store-under-test.js';
import { waitFor } from '../../support/wait-for.js';
import { launchWeft, readmeCommands, runWeft } from '../../support/weft-cli.js';

let store: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ url: store, cleanup } = await freshStoreUrl());
});
afterEach(async () => cleanup());

it('creates the README queue and runs a job through it', async () => {
  const [create, start, ...rest] = readmeCommands('Queues');
  expect(rest).toEqual([]);
  expect((await runWeft(['deploy', 'examples/quick-brown-fox.yaml'], { store })).code).toBe(0);
  const created = await runWeft(create as string[], { store });
  expect([created.code, created.out]).toEqual([
    0,
    'created queue foxes: 2 at once, 1 per key, 20 per 2s',
  ]);
  const started = await runWeft(start as string[], { store });
  expect(started.code, started.err).toBe(0);
  const job = started.out;
  const waiting = await runWeft(['status', job, '--json'], { store });
  // The queue was empty: the job was admitted at once and holds a slot.
  expect(JSON.parse(waiting.out)).toMatchObject({
    state: 'RUNNING',
    queue: { name: 'foxes', key: 'den-1', priority: 0, state: 'running' },
  });
  // A second job of the same key waits for the first to end.
  const second = await runWeft([...(start as string[]), '--id', 'second-fox'], { store });
  expect(second.code, second.err).toBe(0);
  const behind = JSON.parse((await runWeft(['status', 'second-fox', '--json'], { store })).out);
  expect(behind.waitingFor).toEqual([
    expect.stringMatching(/^waits in queue foxes for a slot \(key den-1, priority 0\) since /),
  ]);
  const worker = launchWeft(['worker', '--handlers', 'examples/quick-brown-fox.js'], { store });
  try {
    for (const id of [job, 'second-fox']) {
      const result = await runWeft(['result', id, '--wait', '--timeout', '60000'], { store });
      expect(result.code, result.out).toBe(0);
    }
    expect((await runWeft(['queues'], { store })).out.split('\n')[1]).toMatch(
      /^foxes +2 at once, 1 per key, 20 per 2s +0 +0 +- +0 +-$/,
    );
  } finally {
    expect(await worker.stop()).toBe(0);
  }
});

it('creates the README schedule and runs the worker that fires it', async () => {
  const [create, worker, ...rest] = readmeCommands('Schedules');
  expect(rest).toEqual([]);
  expect((await runWeft(['deploy', 'examples/quick-brown-fox.yaml'], { store })).code).toBe(0);
  const created = await runWeft(create as string[], { store });
  expect(created.code, created.err).toBe(0);
  const lines = created.out.split('\n');
  expect(lines[0]).toBe(
    'created schedule fox-nightly: quick-brown-fox at "0 3 * * *" (Europe/Berlin), overlap skip',
  );
  expect(lines.slice(2).map((l) => l.replace(/^.*Z {2}/, ''))).toEqual(
    Array.from({ length: 5 }, () => expect.stringMatching(/, 03:00:00 (CET|CEST|GMT\+[12])$/)),
  );
  const running = launchWeft(worker as string[], { store });
  try {
    await waitFor(() => running.err().includes('running on'), 'the worker to run', {
      timeoutMs: 30_000,
    });
    const listed = await runWeft(['schedules'], { store });
    expect(listed.out.split('\n')[1]).toMatch(
      /^fox-nightly +quick-brown-fox +0 3 \* \* \* +Europe\/Berlin +active +\S+T0[12]:00:00\.000Z +0 +0 +-$/,
    );
  } finally {
    expect(await running.stop()).toBe(0);
  }
});
