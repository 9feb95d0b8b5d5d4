/**
 * A benchmark worker process: `node --import tsx bench/worker-process.ts <store url>
 * [--concurrency N] [--batch N]` (the Worker's defaults without them). It runs one weft Worker with the benchmark's work (the
 * no-op handler, scenario 2's code-first workflow and task) until told to stop. Spawned with an IPC channel, it says `{ type: 'ready' }` once its loops
 * run, answers `{ type: 'rss' }` with its resident memory, and on `{ type: 'stop' }` (or
 * SIGTERM) stops the worker gracefully, closes the store and exits 0.
 */
import { parseArgs } from 'node:util';
import { openStore } from '../src/store/open-store.js';
import { Worker } from '../src/worker/worker.js';
import { benchWork } from './bench-handlers.js';

/** Messages the driver sends. */
export type ToWorker = { type: 'rss' } | { type: 'stop' };
/** Messages a worker process sends back. */
export type FromWorker =
  | { type: 'ready' }
  | { type: 'rss'; rss: number }
  | { type: 'error'; message: string };

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    concurrency: { type: 'string' },
    batch: { type: 'string' },
  },
});
const url = positionals[0];
const send = (message: FromWorker) => process.send?.(message);

if (!url) {
  process.stderr.write('usage: worker-process.ts <store url> [--concurrency N] [--batch N]\n');
  process.exit(2);
}

try {
  const store = await openStore(url);
  const worker = new Worker({
    store,
    ...benchWork,
    // Without the flags, the Worker's defaults.
    ...(values.concurrency !== undefined && { concurrency: Number(values.concurrency) }),
    ...(values.batch !== undefined && { batchSize: Number(values.batch) }),
  });
  await worker.start();
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    void (async () => {
      await worker.stop();
      await store.close();
      process.exit(0);
    })();
  };
  process.on('SIGTERM', stop);
  process.on('message', (message: ToWorker) => {
    if (message.type === 'rss') send({ type: 'rss', rss: process.memoryUsage().rss });
    else if (message.type === 'stop') stop();
  });
  process.on('disconnect', stop);
  send({ type: 'ready' });
} catch (error) {
  send({ type: 'error', message: error instanceof Error ? error.message : String(error) });
  process.stderr.write(`bench worker: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
}
