/**
 * A worker SIGKILLed in the middle of reverting (a graph job, a code-first instance)
 * loses nothing and duplicates nothing: the revert it held comes back when its lease runs
 * out, another worker process runs it, and every revert has exactly one committed result
 * (its revert semaphore closed once) — the killed run's handler call left no result.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { Client } from '../../../src/client/client.js';
import { compileWorkflow } from '../../../src/engine/compiler.js';
import type { Store } from '../../../src/store/store.js';
import { spawnTestChild, type TestChild } from '../../support/child-process.js';
import { openTestStore } from '../../support/store-under-test.js';

let store: Store;
let url: string;
let close: () => Promise<void>;
let dir: string;
const children: TestChild[] = [];
beforeEach(async () => {
  ({ store, url, close } = await openTestStore());
  dir = mkdtempSync(join(tmpdir(), 'weft-revert-crash-'));
});
afterEach(async () => {
  for (const child of children.splice(0)) {
    child.process.kill('SIGKILL');
    await child.exited;
  }
  await close();
  rmSync(dir, { recursive: true, force: true });
});

it('a revert whose worker is SIGKILLed runs again elsewhere and commits one result', async () => {
  const client = new Client(store);
  await client.deploy(
    compileWorkflow(`
workflow: saga-crash
on_failure: revert
activities:
  start:   { kind: trigger }
  reserve: { kind: task, revert: release }
  charge:  { kind: task, revert: refund }
  ship:    { kind: task, revert: unship, retry: { attempts: 1 } }
transitions:
  start: [reserve]
  reserve: [charge]
  charge: [ship]
`),
  );
  const log = join(dir, 'handlers.log');
  const first = spawnTestChild('revert-worker.ts', [url, log, 'hang']);
  children.push(first);
  await first.waitForLine('READY');
  const job = await client.start('saga-crash', {});
  await first.waitForLine('REFUNDING');
  first.process.kill('SIGKILL');
  await first.exited;
  const second = spawnTestChild('revert-worker.ts', [url, log, 'run']);
  children.push(second);
  const done = await client.result(job.id, { wait: true, timeoutMs: 60_000 });
  expect(done.state).toBe('REVERTED');
  const lines = readFileSync(log, 'utf8').trim().split('\n');
  // The killed refund ran twice as a call (same attempt: a redelivery), once as a result.
  expect(lines).toEqual([
    'reserve 1',
    'charge 1',
    'ship 1',
    'unship 1',
    'refund 1',
    'refund 1',
    'release 1',
  ]);
  const counters = await store.listCounters(job.id);
  const sems = [...counters.entries()].filter(([k]) => k.includes('revert-sem'));
  expect(sems).toHaveLength(3);
  for (const [, value] of sems) expect(value).toBe(888_000_001_000_001n);
  const history = await client.history(job.id);
  const reverts = history.filter((h) => h.kind === 'revert');
  // Per reverted run: one line when its revert started, one for its one committed result.
  expect(reverts.map((h) => h.activity)).toEqual([
    'ship',
    'ship',
    'charge',
    'charge',
    'reserve',
    'reserve',
  ]);
});

it('a code-first revert whose worker is SIGKILLed runs again and commits one result', async () => {
  const client = new Client(store);
  const log = join(dir, 'durable.log');
  const first = spawnTestChild('revert-durable-worker.ts', [url, log, 'hang']);
  children.push(first);
  await first.waitForLine('READY');
  const job = await client.start('crash-saga', []);
  await first.waitForLine('REFUNDING');
  first.process.kill('SIGKILL');
  await first.exited;
  const second = spawnTestChild('revert-durable-worker.ts', [url, log, 'run']);
  children.push(second);
  const done = await client.result(job.id, { wait: true, timeoutMs: 60_000 });
  expect(done.state).toBe('REVERTED');
  const lines = readFileSync(log, 'utf8').trim().split('\n');
  expect(lines).toEqual(['reserve', 'charge', 'ship', 'refund', 'refund', 'release']);
  const counters = await store.listCounters(job.id);
  const sems = [...counters.entries()].filter(([k]) => k.includes('revert-sem'));
  expect(sems).toHaveLength(2);
  for (const [, value] of sems) expect(value).toBe(888_000_001_000_001n);
});
