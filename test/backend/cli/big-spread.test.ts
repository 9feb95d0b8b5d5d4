/**
 * One big job through `weft run`, as a user runs it (issue 18): a spread of 20,000 items
 * (10,000 on PostgreSQL), each through a task of its own, collected and summed — a size where a step whose cost
 * grew with the job's threads used to crawl. The largest spread weft supports is 999,999
 * items (the six digits of the spread's semaphore); one more is a SpreadLimitError, not a
 * wrap. The 100,000-item run is a benchmark (`npm run bench -- --only big-spread`).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { backend, freshStoreUrl } from '../../support/store-under-test.js';
import { runWeft } from '../../support/weft-cli.js';

let store: string;
let cleanup: () => Promise<void>;
let dir: string;
beforeEach(async () => {
  ({ url: store, cleanup } = await freshStoreUrl());
  dir = mkdtempSync(join(tmpdir(), 'weft-big-spread-'));
  writeFileSync(
    join(dir, 'big.yaml'),
    [
      'workflow: big-spread',
      'activities:',
      '  start: { kind: trigger }',
      '  fan: { kind: spread, items: "[1..input.n]" }',
      '  double: { kind: task, input: "fan.item" }',
      '  gather: { kind: collect }',
      'transitions: { start: [fan], fan: [double], double: [gather] }',
      "output: \"{ 'count': $count(gather.output), 'sum': $sum(gather.output) }\"",
      '',
    ].join('\n'),
  );
  writeFileSync(join(dir, 'big.mjs'), 'export default { double: async (n) => n * 2 };\n');
});
afterEach(async () => {
  await cleanup();
  rmSync(dir, { recursive: true, force: true });
});

// PostgreSQL commits each batch over the network: half the items keep its run near SQLite's.
const ITEMS = backend === 'postgres' ? 10_000 : 20_000;

function run(n: number) {
  return runWeft(
    [
      'run',
      join(dir, 'big.yaml'),
      '--handlers',
      join(dir, 'big.mjs'),
      '--input',
      JSON.stringify({ n }),
      '--json',
    ],
    { store, timeoutMs: 15 * 60_000 },
  );
}

it(
  `runs a spread of ${ITEMS} items to its end: every item through its task, all collected`,
  async () => {
    const n = ITEMS;
    const r = await run(n);
    expect(r.code, r.err).toBe(0);
    const job = JSON.parse(r.out);
    expect(job.state).toBe('SUCCESS');
    // 2 + 4 + … + 2n: each item doubled exactly once.
    expect(job.output).toEqual({ count: n, sum: n * (n + 1) });
  },
  20 * 60_000,
);

it(
  'refuses a spread past the largest it supports (999,999 items) with SpreadLimitError',
  async () => {
    const r = await run(1_000_000);
    expect(r.code).toBe(1);
    const job = JSON.parse(r.out);
    expect(job.state).toBe('FAILURE');
    expect(job.error).toMatchObject({ activity: 'fan' });
    expect(job.error.message).toMatch(/1000000 items: at most 999999 threads/);
  },
  5 * 60_000,
);
