// The BullMQ side of the weft benchmark (bench/bullmq.ts copies this file into a scratch
// folder outside the package, where bullmq is installed, and runs it with
// `node workload.mjs <json>`). Scenario 1's shape in BullMQ's own terms: a flow
// (FlowProducer) of `steps` no-op jobs, each the parent of the next, so they run one after
// another (a child before its parent), every one a job of its own stored in Redis. Lanes
// (1, then 50) each add a flow, wait for its top job to finish (QueueEvents) and add the
// next. One Worker in this process with `concurrency` handlers (BullMQ's default is 1;
// the bench gives it as many as there are lanes, as weft's default worker has 64). Each
// phase prints one `WEFT_BENCH_RESULT <json>` line on stdout.
import { FlowProducer, QueueEvents, Worker } from 'bullmq';
import { Redis } from 'ioredis';

const { url, steps, warmup, phases, concurrency } = JSON.parse(process.argv[2]);
// In an ES module BullMQ takes ready clients (one each: the worker and the events reader
// block on their own connections).
// BullMQ does not close clients it was given: they are closed at the end.
const clients = [];
const client = () => {
  const redis = new Redis(url, { maxRetriesPerRequest: null });
  clients.push(redis);
  return redis;
};
const QUEUE = 'weft-bench-linear';

const worker = new Worker(QUEUE, async () => null, { connection: client(), concurrency });
const events = new QueueEvents(QUEUE, { connection: client() });
const flows = new FlowProducer({ connection: client() });
// Each add in flight listens for the producer's closing: 50 lanes are 50 listeners.
flows.setMaxListeners(100);

/** Step 1 is the deepest child (it runs first); step `steps` is the top job. */
function chain() {
  let node;
  for (let i = 1; i <= steps; i++) {
    node = { name: `s${i}`, queueName: QUEUE, data: {}, ...(node ? { children: [node] } : {}) };
  }
  return node;
}

async function runJobs(lanes, jobs, budgetMs) {
  const start = performance.now();
  const deadline = budgetMs === undefined ? Number.POSITIVE_INFINITY : start + budgetMs;
  const latenciesMs = [];
  let started = 0;
  const lane = async () => {
    while (started < jobs && performance.now() < deadline) {
      started++;
      const t0 = performance.now();
      const { job } = await flows.add(chain());
      await job.waitUntilFinished(events, 120_000);
      latenciesMs.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, lanes) }, lane));
  return { finished: latenciesMs.length, elapsedMs: performance.now() - start, latenciesMs };
}

await Promise.all([worker.waitUntilReady(), events.waitUntilReady()]);
try {
  await runJobs(5, warmup);
  for (const { concurrency: lanes, jobs, budgetMs } of phases) {
    const run = await runJobs(lanes, jobs, budgetMs);
    process.stdout.write(`WEFT_BENCH_RESULT ${JSON.stringify({ concurrency: lanes, ...run })}\n`);
  }
} finally {
  await worker.close();
  await events.close();
  await flows.close();
  for (const redis of clients) redis.disconnect();
}
