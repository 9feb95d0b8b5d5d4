/**
 * Redis job history: a list per job, `weft:{p}:hist:<job>`, of JSON lines. The commit
 * script numbers each line when it appends it — `seq` from the list's length, `id` from
 * the partition's counter — so transactions that write one job's lines at once, none
 * holding the job, still number them 1 to n. Like PostgreSQL, a transaction does not read
 * its own lines back before it commits.
 */
import { DEFAULT_HISTORY_LIMIT } from '../../history-row.js';
import type { HistoryEntry, HistoryQuery, NewHistoryEntry } from '../../records.js';
import { partitionKeys as K, partitionOf, SINGLE_PARTITION } from '../keys.js';
import type { RedisTx } from '../redis-tx.js';

/** Buffers lines for the commit; a change that is not JSON fails here. */
export function appendHistory(tx: RedisTx, entries: NewHistoryEntry[]): void {
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
  for (const { job, tail } of tails) {
    const p = partitionOf(job);
    tx.appendLine(K.history(p, job), K.historyIds(p), tail);
  }
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
  const lines = await tx.redis.lrange(K.history(partitionOf(job), job), after, after + limit - 1);
  return lines.map((line) => JSON.parse(line) as HistoryEntry);
}

/** The high-water mark of history line ids. */
export async function lastStep(tx: RedisTx): Promise<number> {
  return Number((await tx.redis.get(K.historyIds(SINGLE_PARTITION))) ?? 0);
}
