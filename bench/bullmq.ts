/**
 * BullMQ beside weft on Redis (`--targets redis,bullmq`): `bullmq` installed into a scratch
 * folder (`external-workload.ts`) and `bullmq/workload.mjs` run there against a fresh
 * logical database of the bench's Redis server (the same server, the same durability
 * settings as the `redis` target): scenario 1's shape as a flow of 10 no-op jobs run one
 * after another, one at a time and 50 at once. Its figures land in scenario 1's rows.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ExternalSystem, runExternalLinear } from './external-workload.js';
import type { Figure } from './scenario.js';
import type { Sizes } from './sizes.js';

/** The BullMQ release the bench installs (issue 23's comparison was 6.7). */
export const BULLMQ_VERSION = '6.7.0';

const BULLMQ: ExternalSystem = {
  name: 'BullMQ',
  code: 'BENCH_BULLMQ',
  package: 'bullmq',
  version: BULLMQ_VERSION,
  // Its Redis client is an optional peer: BullMQ's own docs install ioredis beside it.
  also: ['ioredis@5.9.2'],
  workload: join(fileURLToPath(new URL('.', import.meta.url)), 'bullmq', 'workload.mjs'),
};

/** The scratch folder BullMQ is installed in. */
export function defaultBullmqDir(): string {
  return join(tmpdir(), 'weft-bench-bullmq');
}

/** Handlers of the BullMQ worker: as many as the most lanes a phase runs. */
function workerConcurrency(sizes: Sizes): number {
  return Math.max(1, ...sizes.throughput.map((p) => p.concurrency));
}

/** Runs scenario 1's shape on BullMQ against `url` (a fresh database); returns its figures. */
export function runBullmqLinear(
  dir: string,
  url: string,
  sizes: Sizes,
  log: (line: string) => void,
): Promise<Figure[]> {
  return runExternalLinear(BULLMQ, dir, { url, concurrency: workerConcurrency(sizes) }, sizes, log);
}
