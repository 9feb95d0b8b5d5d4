/**
 * Conformance: 10,000 messages through 4 separate OS processes, each acked exactly once.
 * Every worker records its acks in the same transaction as the ack, so a message acked
 * twice, or acked and not recorded, shows up in the counters.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { NewMessage, Store } from '../../../src/store/store.js';
import { spawnTestChild } from '../../support/child-process.js';
import { openTestStore } from '../../support/store-under-test.js';

const TOTAL = 10_000;
const WORKERS = 4;

let store: Store;
let url: string;
let close: (() => Promise<void>) | undefined;
beforeEach(async () => {
  ({ store, url, close } = await openTestStore());
});
afterEach(async () => {
  await close?.();
  close = undefined;
});

it('4 worker processes ack each of 10,000 messages exactly once', async () => {
  await store.transaction(async (tx) => {
    for (let start = 0; start < TOTAL; start += 1000) {
      const batch: NewMessage[] = [];
      for (let n = start; n < start + 1000; n++) batch.push({ stream: 'work', payload: { n } });
      await tx.append(batch);
    }
  });
  expect(await store.countMessages('work')).toBe(TOTAL);

  const workers = Array.from({ length: WORKERS }, (_, i) =>
    spawnTestChild('stream-worker.ts', [url, 'work', `worker-${i}`]),
  );
  const codes = await Promise.all(workers.map((w) => w.exited));
  expect(codes, workers.map((w) => w.stderr()).join('\n')).toEqual(Array(WORKERS).fill(0));

  expect(await store.countMessages('work')).toBe(TOTAL - TOTAL);
  const acks = await store.listCounters('acks');
  expect(acks.size).toBe(TOTAL);
  for (const value of acks.values()) expect(value).toBe(1n);
  const byWorker = await store.listCounters('acks-by');
  const sum = [...byWorker.values()].reduce((a, b) => a + b, 0n);
  expect(sum).toBe(BigInt(TOTAL));
  const reported = workers.map((w) => Number(w.lines.find((l) => l.startsWith('DONE '))?.slice(5)));
  expect(reported.reduce((a, b) => a + b, 0)).toBe(TOTAL);
}, 180_000);
