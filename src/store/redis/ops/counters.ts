/**
 * Redis counters (the seed's HINCRBY): one hash per job, `weft:{p}:ctr:<job>`, field
 * `activity␟dimension␟field`, value the decimal text of an arbitrary-precision integer.
 * An add reads the field, computes with `bigint`, and the commit checks the field still
 * holds what was read before it moves it — by `HINCRBY` of the delta when Redis can add
 * it exactly in 64 bits (every 15-digit semaphore), else by `HSET` of the exact decimal.
 */
import { counterName } from '../../counter-key.js';
import type { CounterRef } from '../../records.js';
import type { CounterAdd } from '../../store.js';
import { partitionKeys as K, SEP } from '../keys.js';
import type { RedisTx } from '../redis-tx.js';

async function keyOf(tx: RedisTx, job: string): Promise<string> {
  return K.counters(await tx.partitionOf(job), job);
}

function fieldOf(ref: CounterRef): string {
  return [ref.activity ?? '', ref.dimension ?? '', ref.field].join(SEP);
}

function refOf(job: string, field: string): CounterRef {
  const [activity = '', dimension = '', name = ''] = field.split(SEP);
  return { job, activity, dimension, field: name };
}

/** Adds `delta` (from `initial`, or 0, when absent) and returns the new value. */
export async function addCounter(
  tx: RedisTx,
  ref: CounterRef,
  delta: bigint,
  initial?: bigint,
): Promise<bigint> {
  tx.touch(K.revisions(await tx.partitionOf(ref.job)), ref.job);
  return tx.addCounter(await keyOf(tx, ref.job), fieldOf(ref), delta, initial);
}

/** Applies several adds; each counter read first in one `HMGET` per job. */
export async function addCounters(tx: RedisTx, adds: CounterAdd[]): Promise<bigint[]> {
  const byJob = new Map<string, string[]>();
  for (const add of adds) {
    const fields = byJob.get(add.ref.job) ?? [];
    fields.push(fieldOf(add.ref));
    byJob.set(add.ref.job, fields);
  }
  await Promise.all(
    [...byJob].map(async ([job, fields]) => tx.prefetch(await keyOf(tx, job), fields)),
  );
  const out: bigint[] = [];
  for (const add of adds) out.push(await addCounter(tx, add.ref, add.delta, add.initial));
  return out;
}

/** Reads a counter. */
export async function getCounter(tx: RedisTx, ref: CounterRef): Promise<bigint | undefined> {
  const text = await tx.hget(await keyOf(tx, ref.job), fieldOf(ref));
  return text === undefined ? undefined : BigInt(text);
}

/** Reads several counters, in order. */
export async function getCounters(
  tx: RedisTx,
  refs: CounterRef[],
): Promise<(bigint | undefined)[]> {
  const byJob = new Map<string, string[]>();
  for (const ref of refs) {
    const fields = byJob.get(ref.job) ?? [];
    fields.push(fieldOf(ref));
    byJob.set(ref.job, fields);
  }
  await Promise.all(
    [...byJob].map(async ([job, fields]) => tx.prefetch(await keyOf(tx, job), fields)),
  );
  return Promise.all(refs.map((ref) => getCounter(tx, ref)));
}

/** A job's counters by stored field, sorted as the SQL stores list them. */
async function rowsOf(tx: RedisTx, job: string) {
  const stored = await tx.hgetall(await keyOf(tx, job));
  return [...stored]
    .map(([field, value]) => ({ ref: refOf(job, field), value: BigInt(value) }))
    .sort((x, y) => compare(x.ref, y.ref));
}

function compare(x: CounterRef, y: CounterRef): number {
  const a = [x.activity ?? '', x.dimension ?? '', x.field];
  const b = [y.activity ?? '', y.dimension ?? '', y.field];
  for (let i = 0; i < 3; i++) {
    const [p, q] = [a[i] as string, b[i] as string];
    if (p !== q) return p < q ? -1 : 1;
  }
  return 0;
}

/** Every counter of these jobs (of these dimensions, when given). */
export async function countersOfJobs(
  tx: RedisTx,
  jobs: string[],
  dimensions?: string[],
): Promise<{ ref: CounterRef; value: bigint }[]> {
  const dims = dimensions ? new Set(dimensions) : undefined;
  const unique = [...new Set(jobs)];
  const perJob = await Promise.all(unique.map((job) => rowsOf(tx, job)));
  return perJob.flat().filter((row) => !dims || dims.has(row.ref.dimension ?? ''));
}

/** A job's counters: `field` for job counters, `activity/dimension/field` for activity ones. */
export async function listCounters(tx: RedisTx, job: string): Promise<Map<string, bigint>> {
  const out = new Map<string, bigint>();
  for (const { ref, value } of await rowsOf(tx, job)) {
    out.set(
      counterName({
        activity: ref.activity ?? '',
        dimension: ref.dimension ?? '',
        field: ref.field,
      }),
      value,
    );
  }
  return out;
}
