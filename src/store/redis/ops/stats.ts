/**
 * Redis monitoring reads: unfinished jobs by state, per-stream depths, live and expired
 * leases and dead letters, the steps so far (`storeStats`), and the streams of a prefix
 * with work waiting unheld (`waitingStreams`). Stream numbers are counts of sorted sets
 * (`ZCARD`, `ZCOUNT`); jobs by state are counted by reading the job index (phase 1 has
 * no per-state index yet, docs/store-redis.md).
 */
import { UNFINISHED_FLOW_STATES } from '../../../core/states.js';
import type { StoreStats, StreamStat, WaitingStream } from '../../records.js';
import { prefixRange, WAITING_COUNT_CAP } from '../../stream-prefix.js';
import { partitionKeys as K } from '../keys.js';
import type { RedisTx } from '../redis-tx.js';
import { lastStep } from './history.js';
import { countJobs } from './jobs.js';
import { listDeadLetters, readMessages } from './streams.js';

/** Every stream name that has had messages (in any partition), in name order. */
async function streamNames(tx: RedisTx): Promise<string[]> {
  const names = new Set<string>();
  for (const P of tx.partitions.all()) {
    for (const name of await tx.redis.zrange(K.streams(P), '0', '-1')) names.add(name);
    for (const [name] of tx.ownMembers(K.streams(P))) names.add(name);
  }
  return [...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** A number summed over every partition. */
async function overPartitions(tx: RedisTx, read: (P: number) => Promise<number>): Promise<number> {
  const counts = await Promise.all(tx.partitions.all().map(read));
  return counts.reduce((a, b) => a + b, 0);
}

/** Store-wide numbers for `/metrics`. */
export async function storeStats(tx: RedisTx, now: number): Promise<StoreStats> {
  const all = await countJobs(tx);
  const jobs: StoreStats['jobs'] = {};
  for (const state of UNFINISHED_FLOW_STATES) {
    const n = all[state];
    if (n) jobs[state] = n;
  }
  const byName = new Map<string, StreamStat>();
  const at = Math.round(now);
  for (const stream of await streamNames(tx)) {
    const messages = await overPartitions(tx, (P) => tx.redis.zcard(K.ids(P, stream)));
    if (messages === 0) continue;
    const claimed = await overPartitions(tx, (P) =>
      tx.redis.zcount(K.held(P, stream), `(${at}`, '+inf'),
    );
    const expiredLeases = await overPartitions(tx, (P) =>
      tx.redis.zcount(K.held(P, stream), '-inf', at),
    );
    byName.set(stream, { stream, messages, claimed, expiredLeases, deadLetters: 0 });
  }
  for (const dead of await listDeadLetters(tx, undefined, Number.MAX_SAFE_INTEGER)) {
    const stat = byName.get(dead.stream) ?? {
      stream: dead.stream,
      messages: 0,
      claimed: 0,
      expiredLeases: 0,
      deadLetters: 0,
    };
    stat.deadLetters++;
    byName.set(dead.stream, stat);
  }
  const streams = [...byName.values()].sort((a, b) => (a.stream < b.stream ? -1 : 1));
  return { jobs, streams, steps: await lastStep(tx) };
}

/**
 * For each stream of `prefix` (but those in `skip`): its messages nobody holds that have
 * been claimable since `before` or earlier — how many (up to 1,000), since when, and the
 * job of the longest-waiting one.
 */
export async function waitingStreams(
  tx: RedisTx,
  prefix: string,
  before: number,
  skip: readonly string[] = [],
): Promise<WaitingStream[]> {
  prefixRange(prefix);
  const skipped = new Set(skip);
  const at = Math.round(before);
  const out: WaitingStream[] = [];
  for (const stream of await streamNames(tx)) {
    if (!stream.startsWith(prefix) || skipped.has(stream)) continue;
    // The oldest waiting message of every partition; the oldest of those.
    let oldest: { at: string; since: number } | undefined;
    for (const P of tx.partitions.all()) {
      const head = await tx.redis.zrangebyscore(
        K.due(P, stream),
        '-inf',
        at,
        'WITHSCORES',
        'LIMIT',
        0,
        1,
      );
      if (head.length === 0) continue;
      const found = { at: head[0] as string, since: Number(head[1]) };
      if (
        !oldest ||
        found.since < oldest.since ||
        (found.since === oldest.since && found.at < oldest.at)
      ) {
        oldest = found;
      }
    }
    if (!oldest) continue;
    const id = oldest.at.replace(/^0+(?=\d)/, '');
    const [message] = await readMessages(tx, [id]);
    const count = Math.min(
      WAITING_COUNT_CAP,
      await overPartitions(
        tx,
        async (P) =>
          (
            await tx.redis.zrangebyscore(
              K.due(P, stream),
              '-inf',
              at,
              'LIMIT',
              0,
              WAITING_COUNT_CAP,
            )
          ).length,
      ),
    );
    out.push({ stream, messages: count, since: oldest.since, job: message?.job ?? null });
  }
  return out;
}
