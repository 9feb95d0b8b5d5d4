/**
 * A worker process for the revert crash test:
 * `node --import tsx test/support/revert-worker.ts <url> <log file> <hang|run>`.
 * It runs the saga's handlers with a short lease, appending `<handler> <attempt>` to the
 * log file as each one starts; with `hang`, the `refund` revert prints `REFUNDING` and
 * never returns, so the test can SIGKILL the process in the middle of reverting.
 */
import { appendFileSync } from 'node:fs';
import { openStore } from '../../src/store/open-store.js';
import type { TaskHandlers } from '../../src/worker/task-handler.js';
import { Worker } from '../../src/worker/worker.js';

const [url, logFile, mode] = process.argv.slice(2);
if (!url || !logFile || (mode !== 'hang' && mode !== 'run')) {
  console.error('usage: revert-worker.ts <url> <log file> <hang|run>');
  process.exit(2);
}

const handler =
  (name: string, fn?: () => Promise<unknown>): TaskHandlers[string] =>
  async (_input, context) => {
    appendFileSync(logFile, `${name} ${context.attempt}\n`);
    if (fn) return fn();
    return { did: name };
  };

const handlers: TaskHandlers = {
  reserve: handler('reserve'),
  charge: handler('charge'),
  ship: handler('ship', async () => {
    throw new Error('no courier');
  }),
  unship: handler('unship'),
  release: handler('release'),
  refund: handler(
    'refund',
    mode === 'hang'
      ? () => {
          console.log('REFUNDING');
          return new Promise(() => {});
        }
      : undefined,
  ),
};

const store = await openStore(url);
const worker = new Worker({ store, handlers, leaseMs: 400, idleMs: 20 });
await worker.start();
console.log('READY');
