/**
 * Redis retention policies: one hash, `weft:{g}:retention`, workflow → the record as
 * JSON. (Pruning jobs by them, `pruneJobs`, is not built yet.)
 */
import type { RetentionRecord } from '../../records.js';
import { globalKeys as G } from '../keys.js';
import type { RedisTx } from '../redis-tx.js';

/** Writes a workflow's policy whole. */
export function putRetention(tx: RedisTx, record: Omit<RetentionRecord, 'updatedAt'>): void {
  const stored: RetentionRecord = { ...record, updatedAt: tx.now() };
  tx.hset(G.retention, [[record.workflow, JSON.stringify(stored)]]);
}

/** Deletes a workflow's policy (only one declared by `source`, when given). */
export async function deleteRetention(
  tx: RedisTx,
  workflow: string,
  source?: RetentionRecord['source'],
): Promise<boolean> {
  const text = await tx.hgetChecked(G.retention, workflow);
  if (text === undefined) return false;
  if (source !== undefined && (JSON.parse(text) as RetentionRecord).source !== source) {
    return false;
  }
  tx.hset(G.retention, [[workflow, null]]);
  return true;
}

/** Every workflow's policy, by workflow. */
export async function listRetentions(tx: RedisTx): Promise<RetentionRecord[]> {
  const all = [...(await tx.hgetall(G.retention)).values()].map(
    (t) => JSON.parse(t) as RetentionRecord,
  );
  return all.sort((a, b) => (a.workflow < b.workflow ? -1 : a.workflow > b.workflow ? 1 : 0));
}
