/**
 * A task handler's lease must last until its result is committed, not only while the
 * handler runs: when the commit is slow (a busy store), another worker must not take the
 * message over and run the handler a second time. No process dies here, so any second
 * run would be a duplicate with no crash to excuse it.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { Client } from '../../../src/client/client.js';
import { compileWorkflow } from '../../../src/engine/compiler.js';
import { openStore } from '../../../src/store/open-store.js';
import type { Store } from '../../../src/store/store.js';
import { Worker } from '../../../src/worker/worker.js';
import { openTestStore } from '../../support/store-under-test.js';
import { waitFor } from '../../support/wait-for.js';

// Long enough that a loaded machine still renews a lease in time (at 300 ms a starved
// event loop let one lapse for real, and the second run was the lease's, not the commit's).
const LEASE_MS = 1_000;

let store: Store;
let url: string;
let close: () => Promise<void>;
beforeEach(async () => {
  ({ store, url, close } = await openTestStore());
});
afterEach(async () => close());

/** The store, with every transaction begun in a window held back until the window ends. */
function slowCommits(inner: Store, until: () => number): Store {
  return new Proxy(inner, {
    get(target, prop) {
      if (prop === 'transaction') {
        return async (fn: Parameters<Store['transaction']>[0]) => {
          const wait = until() - Date.now();
          if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
          return target.transaction(fn);
        };
      }
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

it('a result that takes several leases to commit is not run again by another worker', async () => {
  const client = new Client(store);
  await client.deploy(
    compileWorkflow(`
workflow: slow-commit
activities:
  begin: { kind: trigger }
  once: { kind: task }
transitions:
  begin: [once]
`),
  );
  const runs: string[] = [];
  let holdUntil = 0;
  const slowStore = await openStore(url);
  const otherStore = await openStore(url);
  const slow = new Worker({
    store: slowCommits(slowStore, () => holdUntil),
    leaseMs: LEASE_MS,
    idleMs: 20,
    handlers: {
      once: async () => {
        runs.push('slow');
        // The result's commit now waits for three leases.
        holdUntil = Date.now() + 3 * LEASE_MS;
        return 'slow';
      },
    },
  });
  await slow.start();
  const job = await client.start('slow-commit', {});
  const waiting = client.result(job.id, { wait: true, timeoutMs: 30_000 });
  // Only once the slow worker ran the handler does a second worker join, ready to take
  // over any lease that runs out.
  await waitFor(() => runs.length > 0, 'the slow worker to run the handler');
  const other = new Worker({
    store: otherStore,
    leaseMs: LEASE_MS,
    idleMs: 20,
    handlers: {
      once: async () => {
        runs.push('other');
        return 'other';
      },
    },
  });
  await other.start();
  try {
    const done = await waiting;
    expect(done.state).toBe('SUCCESS');
    expect(runs).toEqual(['slow']);
  } finally {
    await slow.stop();
    await other.stop();
    await slowStore.close();
    await otherStore.close();
  }
});
