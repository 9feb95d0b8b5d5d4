/**
 * Redis counters (the seed's HINCRBY): one hash per (job, dimensional thread),
 * `weft:{p}:ctr:<job>␟<dimension>`, field `activity␟field` (a job counter's activity is
 * empty), value the decimal text of an arbitrary-precision integer; the thread is in the
 * job's `dims` index (activities.ts), so a batch reads only the threads it runs in.
 * An add reads the field, computes with `bigint`, and the commit checks the field still
 * holds what was read before it moves it — by `HINCRBY` of the delta when Redis can add
 * it exactly in 64 bits (every 15-digit semaphore), else by `HSET` of the exact decimal.
 */
import { counterName } from '../../counter-key.js';
import type { CounterRef } from '../../records.js';
import type { CounterAdd } from '../../store.js';
import { partitionKeys as K, SEP } from '../keys.js';
import type { RedisTx } from '../redis-tx.js';
import { jobDimensions } from './activities.js';

async function keyOf(
  tx: RedisTx,
  ref: { job: string; dimension?: string | undefined },
): Promise<string> {
  return K.counters(await tx.partitionOf(ref.job), ref.job, ref.dimension ?? '');
}

function fieldOf(ref: CounterRef): string {
  return `${ref.activity ?? ''}${SEP}${ref.field}`;
}

function refOf(job: string, dimension: string, field: string): CounterRef {
  const cut = field.indexOf(SEP);
  return { job, activity: field.slice(0, cut), dimension, field: field.slice(cut + 1) };
}

/** Reads the counters of `refs` in one `HMGET` per thread, ahead of reads or adds. */
async function prefetch(tx: RedisTx, refs: CounterRef[]): Promise<void> {
  const byKey = new Map<string, string[]>();
  const keys = await Promise.all(refs.map((ref) => keyOf(tx, ref)));
  for (const [i, ref] of refs.entries()) {
    const key = keys[i] as string;
    const fields = byKey.get(key) ?? [];
    fields.push(fieldOf(ref));
    byKey.set(key, fields);
  }
  await Promise.all([...byKey].map(([key, fields]) => tx.prefetch(key, fields)));
}

/** Adds `delta` (from `initial`, or 0, when absent) and returns the new value. */
export async function addCounter(
  tx: RedisTx,
  ref: CounterRef,
  delta: bigint,
  initial?: bigint,
): Promise<bigint> {
  const p = await tx.partitionOf(ref.job);
  tx.touch(K.revisions(p), ref.job);
  tx.member(K.dimensions(p, ref.job), ref.dimension ?? '', 0);
  return tx.addCounter(await keyOf(tx, ref), fieldOf(ref), delta, initial);
}

/** Applies several adds; each counter read first in one `HMGET` per job. */
export async function addCounters(tx: RedisTx, adds: CounterAdd[]): Promise<bigint[]> {
  await prefetch(
    tx,
    adds.map((add) => add.ref),
  );
  const out: bigint[] = [];
  for (const add of adds) out.push(await addCounter(tx, add.ref, add.delta, add.initial));
  return out;
}

/** Reads a counter. */
export async function getCounter(tx: RedisTx, ref: CounterRef): Promise<bigint | undefined> {
  const text = await tx.hget(await keyOf(tx, ref), fieldOf(ref));
  return text === undefined ? undefined : BigInt(text);
}

/** Reads several counters, in order. */
export async function getCounters(
  tx: RedisTx,
  refs: CounterRef[],
): Promise<(bigint | undefined)[]> {
  await prefetch(tx, refs);
  return Promise.all(refs.map((ref) => getCounter(tx, ref)));
}

/** One thread's counters. */
async function threadRows(tx: RedisTx, job: string, dimension: string) {
  const stored = await tx.hgetall(await keyOf(tx, { job, dimension }));
  return [...stored].map(([field, value]) => ({
    ref: refOf(job, dimension, field),
    value: BigInt(value),
  }));
}

/** A job's counters (of these threads, when given), sorted as the SQL stores list them. */
async function rowsOf(tx: RedisTx, job: string, dimensions?: string[]) {
  const threads = dimensions ? [...new Set(dimensions)] : await jobDimensions(tx, job);
  const perThread = await Promise.all(threads.map((d) => threadRows(tx, job, d)));
  return perThread.flat().sort((x, y) => compare(x.ref, y.ref));
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
  const unique = [...new Set(jobs)];
  const perJob = await Promise.all(unique.map((job) => rowsOf(tx, job, dimensions)));
  return perJob.flat();
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
