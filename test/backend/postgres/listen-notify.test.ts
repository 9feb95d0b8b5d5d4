/**
 * PostgreSQL only: LISTEN/NOTIFY wake-ups reach other store instances — appends, fired
 * timers, delivered signals and finished jobs — only once the writing transaction
 * commits, and still after the LISTEN connection is cut (the store reconnects and wakes
 * its subscribers).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore } from '../../../src/store/open-store.js';
import type { Store } from '../../../src/store/store.js';
import { rawSql } from '../../support/raw-sql.js';
import {
  backend,
  freshStoreUrl,
  skipBackend,
  type TestStoreLocation,
} from '../../support/store-under-test.js';
import { waitFor } from '../../support/wait-for.js';

let location: TestStoreLocation;
let listener: Store;
let writer: Store;
beforeEach(async () => {
  if (backend !== 'postgres' || skipBackend) return;
  location = await freshStoreUrl();
  listener = await openStore(location.url);
  writer = await openStore(location.url);
});
afterEach(async () => {
  await listener?.close();
  await writer?.close();
  await location?.cleanup();
});

function counter() {
  const c = { calls: 0, listener: () => void c.calls++ };
  return c;
}

describe.skipIf(backend !== 'postgres' || skipBackend)('PostgreSQL notices', () => {
  it('another store hears appends, timers, signals and finished jobs', async () => {
    const work = counter();
    const wake = counter();
    const hooks = counter();
    const job = counter();
    await listener.subscribe({ kind: 'stream', name: 'work' }, work.listener);
    await listener.subscribe({ kind: 'stream', name: 'wake' }, wake.listener);
    await listener.subscribe({ kind: 'stream', name: 'hooks' }, hooks.listener);
    await listener.subscribe({ kind: 'job', id: 'j1' }, job.listener);

    await writer.append([{ stream: 'work', payload: 1 }]);
    await waitFor(() => work.calls > 0, 'the append notice');

    await writer.scheduleTimer({ key: 't', at: 0, message: { stream: 'wake', payload: {} } });
    await writer.fireDueTimers(Date.now());
    await waitFor(() => wake.calls > 0, 'the timer notice');

    await writer.registerWaiter({ key: 'k', message: { stream: 'hooks', payload: {} } });
    await writer.deliverSignal('k', 'go');
    await waitFor(() => hooks.calls > 0, 'the signal notice');

    await writer.createJob({ id: 'j1', workflow: 'w', version: 1, model: 'graph', input: null });
    await writer.setJobState('j1', 'PENDING', 'RUNNING');
    await writer.setJobState('j1', 'RUNNING', 'SUCCESS');
    await waitFor(() => job.calls > 0, 'the job notice');
  });

  it('a notice sent inside a transaction arrives only after the commit', async () => {
    const work = counter();
    await listener.subscribe({ kind: 'stream', name: 'work' }, work.listener);
    let callsBeforeCommit = -1;
    await writer.transaction(async (tx) => {
      await tx.append([{ stream: 'work', payload: 1 }]);
      // A round trip on another connection after the NOTIFY was queued: had it been sent
      // already, the listener's connection would have had it first.
      await rawSql(location.url, 'SELECT pg_sleep(0.05)');
      callsBeforeCommit = work.calls;
    });
    expect(callsBeforeCommit).toBe(0);
    await waitFor(() => work.calls > 0, 'the notice after commit');
  });

  it('reconnects when the LISTEN connection is cut, and wakes its subscribers', async () => {
    const work = counter();
    await listener.subscribe({ kind: 'stream', name: 'work' }, work.listener);
    const killed = await rawSql(
      location.url,
      "SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE query = 'LISTEN weft' AND datname = current_database()",
    );
    expect(killed.length).toBeGreaterThan(0);
    // Reconnecting wakes everyone (notices may have been missed)...
    await waitFor(() => work.calls > 0, 'the wake-up after reconnecting');
    // ...and notices flow again on the new connection.
    await waitFor(async () => {
      const [row] = await rawSql(
        location.url,
        "SELECT count(*) AS n FROM pg_stat_activity WHERE query = 'LISTEN weft' AND datname = current_database()",
      );
      return Number(row?.n) > 0;
    }, 'the new LISTEN connection');
    const before = work.calls;
    await writer.append([{ stream: 'work', payload: 2 }]);
    await waitFor(() => work.calls > before, 'a notice on the new connection');
  });
});
