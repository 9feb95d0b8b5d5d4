/** Conformance: counters (HINCRBY) — exact arbitrary-precision adds, atomic across clients. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore } from '../../../src/store/open-store.js';
import type { Store } from '../../../src/store/store.js';
import { openTestStore } from '../../support/store-under-test.js';

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

describe('counters', () => {
  it('starts at 0, or at `initial` when absent, and returns the new value', async () => {
    const ref = { job: 'j', field: 'n' };
    expect(await store.getCounter(ref)).toBeUndefined();
    expect(await store.addCounter(ref, 5n)).toBe(5n);
    expect(await store.addCounter(ref, 2n, 1000n)).toBe(7n);
    const seeded = { job: 'j', activity: 'a', field: 's' };
    expect(await store.addCounter(seeded, -100_000_000_000_000n, 999_000_000_000_000n)).toBe(
      899_000_000_000_000n,
    );
    expect(await store.getCounter(seeded)).toBe(899_000_000_000_000n);
  });

  it('follows the semaphore arithmetic of the seed exactly, negative deltas included', async () => {
    const ref = { job: 'j', activity: 'a1', dimension: '', field: 'semaphore' };
    const steps: [bigint, bigint][] = [
      [-100_000_000_000_000n, 899_000_000_000_000n],
      [-10_000_000_000_000n, 889_000_000_000_000n],
      [1_000_000n, 889_000_001_000_000n],
      [1n, 889_000_001_000_001n],
      [1_000_000n, 889_000_002_000_001n],
      [-999_999_999_999n, 888_000_002_000_002n],
    ];
    expect(await store.addCounter(ref, 0n, 999_000_000_000_000n)).toBe(999_000_000_000_000n);
    for (const [delta, expected] of steps)
      expect(await store.addCounter(ref, delta)).toBe(expected);
    expect(await store.addCounter({ job: 'j', field: 'neg' }, -7n)).toBe(-7n);
  });

  it('adds exactly on a 200-digit value', async () => {
    const ref = { job: 'j', field: 'collation' };
    const key = BigInt('9'.repeat(200));
    expect(await store.addCounter(ref, 0n, key)).toBe(key);
    const delta = -(10n ** 150n) * 3n;
    expect(await store.addCounter(ref, delta)).toBe(key + delta);
    expect(await store.addCounter(ref, 10n ** 210n)).toBe(key + delta + 10n ** 210n);
    expect((await store.getCounter(ref))?.toString()).toHaveLength(211);
  });

  it('keeps job, activity and dimension counters apart and lists them', async () => {
    await store.addCounter({ job: 'j', field: 'collation' }, 1n);
    await store.addCounter({ job: 'j', activity: 'a', field: 'semaphore' }, 2n);
    await store.addCounter({ job: 'j', activity: 'a', dimension: ',0', field: 'semaphore' }, 3n);
    await store.addCounter({ job: 'other', field: 'collation' }, 4n);
    expect(Object.fromEntries(await store.listCounters('j'))).toEqual({
      collation: 1n,
      'a//semaphore': 2n,
      'a/,0/semaphore': 3n,
    });
    expect((await store.listCounters('none')).size).toBe(0);
  });

  it('adds from 8 separately opened stores in parallel sum exactly', async () => {
    const clients = await Promise.all(Array.from({ length: 8 }, () => openStore(url)));
    try {
      const ref = { job: 'shared', field: 'n' };
      await Promise.all(
        clients.map(async (client, c) => {
          for (let i = 0; i < 50; i++) await client.addCounter(ref, BigInt(c + 1));
          // Some adds inside transactions that also await between statements.
          for (let i = 0; i < 10; i++) {
            await client.transaction(async (tx) => {
              await tx.addCounter(ref, 1n);
              await new Promise((done) => setTimeout(done, 1));
              await tx.addCounter(ref, -1n);
              await tx.addCounter(ref, 1n);
            });
          }
        }),
      );
      // sum over c of 50*(c+1) = 50*36, plus 8*10.
      expect(await store.getCounter(ref)).toBe(1800n + 80n);
    } finally {
      await Promise.all(clients.map((c) => c.close()));
    }
  });
});
