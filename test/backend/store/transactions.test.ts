/**
 * Conformance: transactions — all or nothing, async callbacks, notices only after
 * commit, nesting without deadlock, and a tx that cannot be used after its end.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WeftError } from '../../../src/core/errors.js';
import type { Store, StoreTx } from '../../../src/store/store.js';
import { openTestStore } from '../../support/store-under-test.js';

let store: Store;
let close: (() => Promise<void>) | undefined;
beforeEach(async () => {
  ({ store, close } = await openTestStore());
});
afterEach(async () => {
  await close?.();
  close = undefined;
});

const ref = { job: 'j', field: 'n' };

describe('transactions', () => {
  it('commits everything the callback did, across awaits', async () => {
    const value = await store.transaction(async (tx) => {
      await tx.addCounter(ref, 1n);
      await new Promise((done) => setTimeout(done, 5));
      await tx.append([{ stream: 's', payload: 1 }]);
      return tx.addCounter(ref, 1n);
    });
    expect(value).toBe(2n);
    expect(await store.countMessages('s')).toBe(1);
  });

  it('a throw rolls everything back and is rethrown', async () => {
    const boom = new Error('boom');
    await expect(
      store.transaction(async (tx) => {
        await tx.addCounter(ref, 1n);
        await tx.append([{ stream: 's', payload: 1 }]);
        throw boom;
      }),
    ).rejects.toBe(boom);
    expect(await store.getCounter(ref)).toBeUndefined();
    expect(await store.countMessages('s')).toBe(0);
  });

  it('concurrent transactions on one store each commit all of their work', async () => {
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        store.transaction(async (tx) => {
          await tx.addCounter(ref, 1n);
          await new Promise((done) => setTimeout(done, 1));
          await tx.append([{ stream: 's', payload: i }]);
          await tx.addCounter(ref, 1n);
        }),
      ),
    );
    expect(await store.getCounter(ref)).toBe(40n);
    expect(await store.countMessages('s')).toBe(20);
  });

  // A backend may run a nested transaction (or a direct call) made inside a callback in
  // the open transaction, or refuse it with a typed error; it must never hang.
  it('a nested transaction inside a callback joins or is refused, never deadlocks', async () => {
    const outcome = await store.transaction(async (tx) => {
      await tx.addCounter(ref, 1n);
      try {
        await store.transaction(async (inner) => inner.addCounter(ref, 100n));
        return 'joined';
      } catch (error) {
        expect(error).toBeInstanceOf(WeftError);
        return 'refused';
      }
    });
    expect(await store.getCounter(ref)).toBe(outcome === 'joined' ? 101n : 1n);
  });

  it('a nested transaction that throws rolls back with its caller', async () => {
    await expect(
      store.transaction(async (tx) => {
        await tx.addCounter(ref, 1n);
        await store.transaction(async (inner) => {
          await inner.addCounter(ref, 100n);
          throw new Error('inner');
        });
      }),
    ).rejects.toThrow();
    expect(await store.getCounter(ref)).toBeUndefined();
  });

  it('a tx used after its transaction ended is refused', async () => {
    let leaked: StoreTx | undefined;
    await store.transaction(async (tx) => {
      leaked = tx;
    });
    const error = await leaked?.addCounter(ref, 1n).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WeftError);
    expect(await store.getCounter(ref)).toBeUndefined();
  });

  it('a closed store refuses calls with a typed error', async () => {
    const { store: other, close: closeOther } = await openTestStore();
    await closeOther();
    await expect(other.getJob('x')).rejects.toBeInstanceOf(WeftError);
  });
});
