/**
 * Redis job history: a list per job, `weft:{p}:hist:<job>`, of JSON lines. The commit
 * script numbers each line when it appends it — `seq` from the list's length, `id` from
 * the partition's counter — so transactions that write one job's lines at once, none
 * holding the job, still number them 1 to n. Like PostgreSQL, a transaction does not read
 * its own lines back before it commits.
 */
import { DEFAULT_HISTORY_LIMIT } from '../../history-row.js';
import type { HistoryEntry, HistoryQuery, NewHistoryEntry } from '../../records.js';
import { globalKeys as G, partitionKeys as K } from '../keys.js';
import type { RedisTx } from '../redis-tx.js';

/** Buffers lines for the commit; a change that is not JSON fails here. */
export async function appendHistory(tx: RedisTx, entries: NewHistoryEntry[]): Promise<void> {
  const now = tx.now();
  const tails = entries.map((e) => {
    const text = JSON.stringify({
      job: e.job,
      kind: e.kind,
      activity: e.activity ?? null,
      dimension: e.dimension ?? '',
      change: e.change,
      at: Math.round(e.at ?? now),
      worker: e.worker ?? null,
    });
    return { job: e.job, tail: text.slice(1) };
  });
  if (tx.partitions.count === 1) {
    for (const { job, tail } of tails) tx.appendLine(K.history(0, job), K.historyIds(0), tail);
    return;
  }
  // Several partitions: ids from one counter, taken now, so they grow across the store
  // (a rolled-back append leaves a gap, as a message id does).
  const partitions = await Promise.all(tails.map(({ job }) => tx.partitionOf(job)));
  const last = await tx.redis.incrby(G.historyIds, tails.length);
  tails.forEach(({ job, tail }, i) => {
    const id = String(last - tails.length + 1 + i);
    tx.appendLine(K.history(partitions[i] as number, job), id, tail, true);
  });
}

/** A job's lines by seq, after `afterSeq`, at most `limit`. */
export async function historyOfJob(
  tx: RedisTx,
  job: string,
  query: HistoryQuery = {},
): Promise<HistoryEntry[]> {
  const after = Math.max(0, query.afterSeq ?? 0);
  const limit = query.limit ?? DEFAULT_HISTORY_LIMIT;
  if (limit <= 0) return [];
  const key = K.history(await tx.partitionOf(job), job);
  const lines = await tx.redis.lrange(key, after, after + limit - 1);
  return lines.map((line) => JSON.parse(line) as HistoryEntry);
}

/** The high-water mark of history line ids (the partition's counter, or `{g}`'s). */
export async function lastStep(tx: RedisTx): Promise<number> {
  const key = tx.partitions.count === 1 ? K.historyIds(0) : G.historyIds;
  return Number((await tx.redis.get(key)) ?? 0);
}
