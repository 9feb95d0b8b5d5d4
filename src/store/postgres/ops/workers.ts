/**
 * PostgreSQL workers: each running worker's row — what it serves and its last heartbeat —
 * and the streams whose messages have been waiting, unheld, since a given time.
 */
import type { NewWorkerPresence, WaitingStream, WorkerPresence } from '../../records.js';
import { prefixRange, WAITING_COUNT_CAP } from '../../stream-prefix.js';
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
// The streams of a prefix by a skip over the claim index (one probe each, however many
// messages they hold), then, for those not skipped, the longest-waiting claimable message
// and a count up to $4. A held message's available_at is its lease's end, so "claimable
// since $3" is one range of the same index.
const WAITING = sql(
  'worker_waiting_streams',
  `WITH RECURSIVE s(stream) AS (
     SELECT min(stream) FROM weft_messages WHERE stream >= $1 AND stream < $2
     UNION ALL
     SELECT (SELECT min(m.stream) FROM weft_messages m WHERE m.stream > s.stream AND m.stream < $2)
     FROM s WHERE s.stream IS NOT NULL
   ), wanted AS (
     SELECT stream FROM s WHERE stream IS NOT NULL AND NOT (stream = ANY($5::text[]))
   )
   SELECT w.stream, o.job, o.available_at AS since,
     (SELECT count(*) FROM (SELECT 1 FROM weft_messages c
        WHERE c.stream = w.stream AND c.available_at <= $3 LIMIT $4) n)::int AS messages
   FROM wanted w
   JOIN LATERAL (SELECT job, available_at FROM weft_messages o
     WHERE o.stream = w.stream AND o.available_at <= $3
     ORDER BY available_at, id LIMIT 1) o ON true
   ORDER BY w.stream`,
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

  async waitingStreams(
    db: Db,
    prefix: string,
    before: number,
    skip: readonly string[] = [],
  ): Promise<WaitingStream[]> {
    const { start, end } = prefixRange(prefix);
    const rows = await db.rows<{
      stream: string;
      job: string | null;
      since: string | number;
      messages: number;
    }>(WAITING, [start, end, ms(before), WAITING_COUNT_CAP, [...skip]]);
    return rows.map((r) => ({
      stream: r.stream,
      messages: r.messages,
      since: Number(r.since),
      job: r.job,
    }));
  },
};
