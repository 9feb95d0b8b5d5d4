/**
 * The worker that dies, for `scripts/write-stored-jobs-fixture.ts`:
 * `node --import tsx scripts/stored-jobs-dying-worker.ts <store url> <now>`.
 *
 * It runs a real Worker, on a simulated clock stopped at `<now>`, with handlers for the
 * two tasks the fixture leaves claimed (`fx-charge`, graph; `fx-settle`, code-first)
 * that print `started <task> <idempotency key>` and never return. Its parent kills it
 * with SIGKILL once both have started, so the store keeps both messages claimed, their
 * leases running `DEAD_LEASE_MS` past `<now>`, as a crashed machine leaves them.
 */
import { SimulatedClock } from '../src/core/clock.js';
import { openStore } from '../src/store/open-store.js';
import type { TaskHandler } from '../src/worker/task-handler.js';
import { Worker } from '../src/worker/worker.js';
import { DEAD_LEASE_MS } from '../test/fixtures/stored-jobs/workflows.js';

const [url, now] = process.argv.slice(2);
if (!url || !now) {
  process.stderr.write('usage: stored-jobs-dying-worker.ts <store url> <now>\n');
  process.exit(2);
}
const clock = new SimulatedClock(Number(now));
const store = await openStore(url, { clock });

const hang =
  (task: string): TaskHandler =>
  (_input, ctx) => {
    process.stdout.write(`started ${task} ${ctx.idempotencyKey}\n`);
    return new Promise(() => {});
  };

const worker = new Worker({
  store,
  clock,
  leaseMs: DEAD_LEASE_MS,
  idleMs: 20,
  handlers: { 'fx-charge': hang('fx-charge'), 'fx-settle': hang('fx-settle') },
});
await worker.start();
process.stdout.write('ready\n');
