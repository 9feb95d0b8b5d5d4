/**
 * Redis worker presence: one hash, `weft:{p}:workers`, worker id → its presence as JSON.
 * A heartbeat keeps the first one's `startedAt`; listing and pruning read the whole hash
 * (a worker count, not a job count).
 */
import type { NewWorkerPresence, WorkerPresence } from '../../records.js';
import { partitionKeys as K, SINGLE_PARTITION } from '../keys.js';
import type { RedisTx } from '../redis-tx.js';

const KEY = K.workers(SINGLE_PARTITION);

/** A worker's heartbeat: what it serves now, its first heartbeat kept. */
export async function putWorker(tx: RedisTx, worker: NewWorkerPresence): Promise<void> {
  const stored = await tx.hget(KEY, worker.id);
  const startedAt = stored ? (JSON.parse(stored) as WorkerPresence).startedAt : worker.at;
  const presence: WorkerPresence = {
    id: worker.id,
    tasks: worker.tasks,
    streams: worker.streams,
    workflows: worker.workflows,
    startedAt,
    heartbeatAt: worker.at,
  };
  tx.hset(KEY, [[worker.id, JSON.stringify(presence)]]);
}

/** Forgets a worker; false when it was not recorded. */
export async function removeWorker(tx: RedisTx, id: string): Promise<boolean> {
  if ((await tx.hgetChecked(KEY, id)) === undefined) return false;
  tx.hset(KEY, [[id, null]]);
  return true;
}

/** The workers recorded, in id order; with `since`, those heard from since then. */
export async function listWorkers(tx: RedisTx, since?: number): Promise<WorkerPresence[]> {
  const all = [...(await tx.hgetall(KEY)).values()].map((t) => JSON.parse(t) as WorkerPresence);
  return all
    .filter((w) => since === undefined || w.heartbeatAt >= since)
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** Forgets the workers last heard from before `before`; returns how many. */
export async function pruneWorkers(tx: RedisTx, before: number): Promise<number> {
  let pruned = 0;
  for (const w of await listWorkers(tx)) {
    if (w.heartbeatAt >= before) continue;
    // Checked at commit: a heartbeat that lands meanwhile keeps its worker.
    await tx.hgetChecked(KEY, w.id);
    tx.hset(KEY, [[w.id, null]]);
    pruned++;
  }
  return pruned;
}
