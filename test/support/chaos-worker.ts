/**
 * One chaos worker process:
 * `node --import tsx test/support/chaos-worker.ts <store url> <worker number> <log dir> [settings json] [spare]`.
 *
 * It loads its code, opens the store and warms its connections. A `spare` then prints
 * `LOADED` and waits for a `GO` line on stdin before it claims anything, so the driver can
 * keep one warm and replace a killed worker at once. Then it runs a real {@link Worker} with the handlers of every chaos
 * workload (each run logged to `<log dir>/w<n>.handlers.log`) and the audit taps, prints
 * `READY` once its loops run, and on SIGTERM stops gracefully (running handlers finish,
 * results commit), closes the store, prints `STOPPED` and exits 0. The driver SIGKILLs it
 * at random moments instead, which is the point.
 */
import { openStore } from '../../src/store/open-store.js';
import type { ErrorRecord } from '../../src/store/records.js';
import { Worker } from '../../src/worker/worker.js';
import { tapDurableEngine, tapGraphEngine } from './chaos-audit.js';
import { HandlerLog, handlerLogPath } from './chaos-handlers.js';
import {
  type ChaosWorkerSettings,
  DEFAULT_CHAOS_WORKER_SETTINGS,
} from './chaos-worker-settings.js';
import { CHAOS_WORKLOADS } from './chaos-workloads.js';

const [url, number, dir, json, mode] = process.argv.slice(2);
if (!url || !number || !dir) {
  console.error('usage: chaos-worker.ts <store url> <worker number> <log dir> [settings json]');
  process.exit(2);
}
const settings: ChaosWorkerSettings = {
  ...DEFAULT_CHAOS_WORKER_SETTINGS,
  ...(json ? (JSON.parse(json) as Partial<ChaosWorkerSettings>) : {}),
};
const workerNumber = Number(number);
const log = new HandlerLog(handlerLogPath(dir, workerNumber));
const handlers = Object.assign({}, ...CHAOS_WORKLOADS.map((w) => w.handlers(log)));

/**
 * Runs `step` until it works, as a supervisor restarting the process would: a worker
 * started while the store's server restarts (a chaos run's PostgreSQL restarts) waits
 * for it instead of dying.
 */
async function untilUp<T>(step: () => Promise<T>): Promise<T> {
  const since = Date.now();
  for (;;) {
    try {
      return await step();
    } catch (error) {
      if (Date.now() - since > 120_000) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

const store = await untilUp(() => openStore(url));
// Warm the store's connections (PostgreSQL opens pool connections lazily), so a fresh
// worker is as quick as an old one; it claims nothing yet.
await untilUp(() =>
  Promise.all(Array.from({ length: settings.concurrency + 2 }, () => store.countMessages())),
);
if (mode === 'spare') {
  console.log('LOADED');
  await new Promise<void>((resolve) => {
    let text = '';
    process.stdin.setEncoding('utf8').on('data', (chunk: string) => {
      text += chunk;
      if (text.includes('GO')) {
        process.stdin.pause();
        resolve();
      }
    });
  });
}

const worker = new Worker({
  store,
  handlers,
  workflows: CHAOS_WORKLOADS.flatMap((w) => w.code ?? []),
  concurrency: settings.concurrency,
  batchSize: settings.batchSize,
  leaseMs: settings.leaseMs,
  idleMs: settings.idleMs,
  // Kills, not failures, are what redeliver messages here; a message must never be
  // dead-lettered because its holders kept dying. Real failures still show up: they are
  // logged to stderr, and a job that cannot finish is reported lost.
  maxDeliveries: 1000,
  graceMs: 10_000,
  consumer: `chaos-w${workerNumber}-${process.pid}`,
  logger: {
    error(message: string, error?: ErrorRecord) {
      process.stderr.write(
        `w${workerNumber}: ${message}${error ? `: ${error.name}: ${error.message}` : ''}\n`,
      );
    },
    info() {},
  },
});
tapGraphEngine(worker.graph, workerNumber);
tapDurableEngine(worker.durable, workerNumber);
for (const workload of CHAOS_WORKLOADS) workload.configureWorker?.(worker, workerNumber);

// The worker's idle timers are unref'd; this keeps the process up until it is told to stop.
const keepAlive = setInterval(() => {}, 60_000);
let stopping = false;
process.on('SIGTERM', () => {
  if (stopping) return;
  stopping = true;
  void (async () => {
    await worker.stop();
    await store.close();
    clearInterval(keepAlive);
    console.log('STOPPED');
    process.exit(0);
  })();
});

await untilUp(() => worker.start());
console.log('READY');
