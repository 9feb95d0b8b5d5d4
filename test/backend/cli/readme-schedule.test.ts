/**
 * The README's schedule commands, word for word, each its own process: the schedule is
 * created with its next five runs at 03:00 Berlin time, and the worker that fires it
 * runs until stopped, the schedule waiting for its tick.
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
