/**
 * A dashboard with something to show, for the browser tests: a fresh SQLite store, an
 * `order` graph workflow whose `approve` hook waits for a signal, a `saga` whose
 * failed charge reverts its reserve (and skips its wrap), the README's code-first
 * `trip` workflow, a code-first `price-check` whose task is retried once, a worker running them in this process, and `weft dashboard`'s server on a free loopback port.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import trip, { bookFlight, bookHotel, charge, confirm } from '../../examples/code-first-trip.js';
import { Client } from '../../src/client/client.js';
import { defineTask, defineWorkflow, Workflow } from '../../src/durable/index.js';
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

/** A scope, a cycle that runs its body three times, and a child job. */
export const FULFIL = compileWorkflow(`
workflow: fulfil
activities:
  begin: { kind: trigger }
  payment:
    kind: scope
    activities:
      reserve: { kind: task, task: reserve }
      capture: { kind: task, task: capture }
    transitions: { reserve: [capture] }
  count:   { kind: task, task: count }
  again:   { kind: cycle, ancestor: count, max: 5 }
  invoice: { kind: await, workflow: invoice, input: "{ 'n': count.output }" }
transitions:
  begin: [payment]
  payment: [count]
  count:
    - { to: again, when: "count.output < 3" }
    - { to: invoice, when: "count.output >= 3" }
output: "invoice.output"
`);

/**
 * A saga whose charge fails: reserve is reverted (3, Reverted), wrap is a branch not taken
 * (3, Skipped), charge stays on 7 (the failed activity); the job ends REVERTED.
 */
export const SAGA = compileWorkflow(`
workflow: saga
on_failure: revert
activities:
  placed:  { kind: trigger }
  reserve: { kind: task, task: reserve-stock, revert: release-stock }
  wrap:    { kind: task, task: wrap-gift }
  charge:  { kind: task, task: charge-card, retry: { attempts: 1 } }
transitions:
  placed: [reserve]
  reserve:
    - charge
    - { to: wrap, when: "false" }
`);

export const INVOICE = compileWorkflow(`
workflow: invoice
activities:
  open:  { kind: trigger }
  print: { kind: task, task: print }
transitions:
  open: [print]
output: "print.output"
`);

let lookups = 0;
/** A task whose first attempt fails: retried after a 150 ms backoff. */
export const lookUp = defineTask(
  'look-up',
  (sku: string) => {
    lookups += 1;
    if (lookups % 2 === 1) throw new Error('catalogue busy');
    return { sku, price: 7 };
  },
  { retry: { attempts: 3, backoff: '150ms' } },
);

/** A code-first workflow whose one task is retried once, then waits for an approval. */
export const priceCheck = defineWorkflow(
  'price-check',
  class extends Workflow {
    async handle(sku: string) {
      const price = await this.execute(lookUp, sku);
      const approval = await this.waitForEvent('approved', { timeoutMs: 60_000 });
      return { price, approval };
    }
  },
);

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
  await client.deploy(INVOICE);
  await client.deploy(FULFIL);
  await client.deploy(SAGA);
  let counted = 0;
  const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const worker = new Worker({
    store,
    concurrency: 4,
    workflows: [trip, priceCheck],
    tasks: [bookFlight, bookHotel, charge, confirm, lookUp],
    handlers: {
      'take-payment': async (input) => {
        await pause(50);
        return { charged: 42, input };
      },
      pack: async () => ({ boxes: 2 }),
      ship: async () => ({ tracking: 'TRK-1' }),
      refund: async () => ({ refunded: true }),
      reserve: async () => ({ held: true }),
      capture: async () => ({ captured: true }),
      count: async () => {
        counted += 1;
        return ((counted - 1) % 3) + 1;
      },
      print: async (input) => ({ number: `INV-${(input as { n: number }).n}` }),
      'reserve-stock': async () => ({ held: 1 }),
      'release-stock': async () => ({ released: 1 }),
      'wrap-gift': async () => ({ wrapped: true }),
      'charge-card': async () => {
        throw new Error('card declined');
      },
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
