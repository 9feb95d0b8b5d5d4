/**
 * A dashboard with something to show, for the browser tests: a fresh SQLite store, an
 * `order` graph workflow whose `approve` hook waits for a signal, the README's code-first
 * `trip` workflow, a worker running both in this process, and `weft dashboard`'s server on a free loopback port.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import trip, { bookFlight, bookHotel, charge, confirm } from '../../examples/code-first-trip.js';
import { Client } from '../../src/client/client.js';
import { compileWorkflow } from '../../src/engine/compiler.js';
import { type RunningDashboard, startDashboard } from '../../src/server/dashboard.js';
import { openStore } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/store.js';
import { Worker } from '../../src/worker/worker.js';

export const ORDER = compileWorkflow(`
workflow: order
activities:
  received: { kind: trigger }
  charge:   { kind: task, task: take-payment }
  pack:     { kind: task }
  approve:  { kind: hook, signal: approved }
  ship:     { kind: task }
  refund:   { kind: task }
transitions:
  received: [charge, pack]
  charge:
    - approve
    - { to: refund, on: error }
  pack: [approve]
  approve: [ship]
output: "ship.output"
`);

export interface DashboardFixture {
  store: Store;
  client: Client;
  dashboard: RunningDashboard;
  close(): Promise<void>;
}

export async function dashboardFixture(): Promise<DashboardFixture> {
  const dir = mkdtempSync(join(tmpdir(), 'weft-dashboard-'));
  const store = await openStore(`sqlite:${join(dir, 'weft.db')}`);
  const client = new Client(store);
  await client.deploy(ORDER);
  const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const worker = new Worker({
    store,
    concurrency: 4,
    workflows: [trip],
    tasks: [bookFlight, bookHotel, charge, confirm],
    handlers: {
      'take-payment': async (input) => {
        await pause(50);
        return { charged: 42, input };
      },
      pack: async () => ({ boxes: 2 }),
      ship: async () => ({ tracking: 'TRK-1' }),
      refund: async () => ({ refunded: true }),
    },
  });
  await worker.start();
  const dashboard = await startDashboard({ store, client, port: 0, pollMs: 100 });
  return {
    store,
    client,
    dashboard,
    async close() {
      await dashboard.close();
      await worker.stop();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
