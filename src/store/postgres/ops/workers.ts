/**
 * PostgreSQL workers: each running worker's row — what it serves and its last heartbeat —
 * and the streams whose messages have been waiting, unheld, since a given time.
 */
import type { NewWorkerPresence, WaitingStream, WorkerPresence } from '../../records.js';
import { prefixRange } from '../../stream-prefix.js';
import { type Db, ms, sql } from './context.js';

interface WorkerRow {
  id: string;
  tasks: string[];
  streams: string[];
  workflows: string[];
  started_at: string | number;
  heartbeat_at: string | number;
}

function toPresence(row: WorkerRow): WorkerPresence {
  return {
    id: row.id,
    tasks: row.tasks,
    streams: row.streams,
    workflows: row.workflows,
    startedAt: Number(row.started_at),
    heartbeatAt: Number(row.heartbeat_at),
  };
}

const PUT = sql(
  'worker_put',
  `INSERT INTO weft_workers (id, tasks, streams, workflows, started_at, heartbeat_at)
   VALUES ($1, $2::json, $3::json, $4::json, $5, $5)
   ON CONFLICT (id) DO UPDATE SET tasks = EXCLUDED.tasks, streams = EXCLUDED.streams,
     workflows = EXCLUDED.workflows, heartbeat_at = EXCLUDED.heartbeat_at`,
);
const REMOVE = sql('worker_remove', 'DELETE FROM weft_workers WHERE id = $1');
const LIST = sql(
  'worker_list',
  `SELECT * FROM weft_workers WHERE $1::bigint IS NULL OR heartbeat_at >= $1::bigint ORDER BY id`,
);
const PRUNE = sql('worker_prune', 'DELETE FROM weft_workers WHERE heartbeat_at < $1');
// A held message's available_at is its lease's end, so "claimable since $3" is one range
// of the claim index; DISTINCT ON keeps each stream's longest-waiting message.
const WAITING = sql(
  'worker_waiting_streams',
  `SELECT DISTINCT ON (stream) stream, job, available_at AS since,
     count(*) OVER (PARTITION BY stream)::int AS messages
   FROM weft_messages WHERE stream >= $1 AND stream < $2 AND available_at <= $3
   ORDER BY stream, available_at, id`,
);

/** Worker presence operations. */
export const workers = {
  async putWorker(db: Db, worker: NewWorkerPresence): Promise<void> {
    await db.count(PUT, [
      worker.id,
      JSON.stringify(worker.tasks),
      JSON.stringify(worker.streams),
      JSON.stringify(worker.workflows),
      ms(worker.at),
    ]);
  },

  async removeWorker(db: Db, id: string): Promise<boolean> {
    return (await db.count(REMOVE, [id])) === 1;
  },

  async listWorkers(db: Db, since?: number): Promise<WorkerPresence[]> {
    const rows = await db.rows<WorkerRow>(LIST, [since === undefined ? null : ms(since)]);
    return rows.map(toPresence);
  },

  async pruneWorkers(db: Db, before: number): Promise<number> {
    return db.count(PRUNE, [ms(before)]);
  },

  async waitingStreams(db: Db, prefix: string, before: number): Promise<WaitingStream[]> {
    const { start, end } = prefixRange(prefix);
    const rows = await db.rows<{
      stream: string;
      job: string | null;
      since: string | number;
      messages: number;
    }>(WAITING, [start, end, ms(before)]);
    return rows.map((r) => ({
      stream: r.stream,
      messages: r.messages,
      since: Number(r.since),
      job: r.job,
    }));
  },
};
