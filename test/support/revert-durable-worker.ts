/**
 * A worker process for the code-first revert crash test:
 * `node --import tsx test/support/revert-durable-worker.ts <url> <log file> <hang|run>`.
 * It has the `crash-saga` workflow and its tasks, with a short lease, and appends each
 * task's name to the log file as it starts; with `hang`, the `refund` revert prints
 * `REFUNDING` and never returns, so the test can SIGKILL the process mid-revert.
 */
import { appendFileSync } from 'node:fs';
import { defineTask, defineWorkflow, Workflow } from '../../src/durable/index.js';
import { openStore } from '../../src/store/open-store.js';
import { Worker } from '../../src/worker/worker.js';

const [url, logFile, mode] = process.argv.slice(2);
if (!url || !logFile || (mode !== 'hang' && mode !== 'run')) {
  console.error('usage: revert-durable-worker.ts <url> <log file> <hang|run>');
  process.exit(2);
}

const logged = (name: string) => appendFileSync(logFile, `${name}\n`);
const release = defineTask('release', async () => {
  logged('release');
  return 'released';
});
const refund = defineTask('refund', async () => {
  logged('refund');
  if (mode === 'hang') {
    console.log('REFUNDING');
    await new Promise(() => {});
  }
  return 'refunded';
});
const reserve = defineTask(
  'reserve',
  async () => {
    logged('reserve');
    return 'H-1';
  },
  { revert: release },
);
const charge = defineTask(
  'charge',
  async () => {
    logged('charge');
    return 'R-1';
  },
  { revert: refund },
);
const ship = defineTask(
  'ship',
  async () => {
    logged('ship');
    throw new Error('no courier');
  },
  { retry: { attempts: 1 } },
);

export const crashSaga = defineWorkflow(
  'crash-saga',
  class extends Workflow {
    async handle() {
      await this.execute(reserve);
      await this.execute(charge);
      await this.execute(ship);
    }
  },
  { onFailure: 'revert' },
);

const store = await openStore(url);
const worker = new Worker({
  store,
  workflows: [crashSaga],
  tasks: [reserve, charge, ship],
  leaseMs: 400,
  idleMs: 20,
});
await worker.start();
console.log('READY');
