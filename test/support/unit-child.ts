/**
 * A process for the crash tests of a unit of work:
 * `node --import tsx test/support/unit-child.ts <url> <before-commit|after-commit>`.
 * It claims the one message on stream `work`, applies a unit (ack, two child messages,
 * counters, an activity write, a timer) and then either stops inside the open
 * transaction (`before-commit`, prints `APPLIED`) or commits (`after-commit`, prints
 * `COMMITTED`); either way it then waits to be killed.
 */
import { openStore } from '../../src/store/open-store.js';
import type { UnitOfWork } from '../../src/store/store.js';
import { applyUnit } from '../../src/store/unit-of-work.js';

const [url, mode] = process.argv.slice(2);
if (!url || (mode !== 'before-commit' && mode !== 'after-commit')) {
  console.error('usage: unit-child.ts <url> <before-commit|after-commit>');
  process.exit(2);
}

const forever = () => new Promise<never>(() => setInterval(() => {}, 60_000));
const store = await openStore(url);
const [message] = await store.claim('work', { consumer: 'child', leaseMs: 60_000 });
if (!message) {
  console.error('no message to claim');
  process.exit(3);
}
const unit: UnitOfWork = {
  ack: { stream: 'work', id: message.id, consumer: 'child' },
  append: [
    { stream: 'children', job: 'crash-job', payload: { child: 1 } },
    { stream: 'children', job: 'crash-job', payload: { child: 2 } },
  ],
  counters: [
    { ref: { job: 'crash-job', field: 'collation' }, delta: -100n, initial: 999n },
    { ref: { job: 'crash-job', activity: 'a1', field: 'semaphore' }, delta: 1n },
  ],
  activities: [{ job: 'crash-job', activity: 'a1', status: 'SUCCESS', output: { ok: true } }],
  timers: [{ key: 'crash-timer', at: 1, message: { stream: 'wake', payload: {} } }],
};
await store.transaction(async (tx) => {
  await applyUnit(tx, unit);
  if (mode === 'before-commit') {
    console.log('APPLIED');
    await forever();
  }
});
console.log('COMMITTED');
await forever();
