/**
 * SQLite workers: each running worker's row — what it serves and its last heartbeat —
 * and the streams whose messages have been waiting, unheld, since a given time.
 */
import type { NewWorkerPresence, WaitingStream, WorkerPresence } from '../../records.js';
import { prefixRange } from '../../stream-prefix.js';
import { fromJson, type OpsContext, type Statement } from './context.js';

interface WorkerRow {
  id: string;
  tasks: string;
  streams: string;
  workflows: string;
  started_at: number;
  heartbeat_at: number;
}

function toPresence(row: WorkerRow): WorkerPresence {
  return {
    id: row.id,
    tasks: fromJson<string[]>(row.tasks),
    streams: fromJson<string[]>(row.streams),
    workflows: fromJson<string[]>(row.workflows),
    startedAt: row.started_at,
    heartbeatAt: row.heartbeat_at,
  };
}

/** Worker presence operations on one connection. */
export class SqliteWorkers {
  private readonly s: Record<string, Statement>;

  constructor(ctx: OpsContext) {
    const p = (sql: string) => ctx.db.prepare(sql);
    this.s = {
      put: p(`INSERT INTO weft_workers (id, tasks, streams, workflows, started_at, heartbeat_at)
        VALUES (@id, @tasks, @streams, @workflows, @at, @at)
        ON CONFLICT (id) DO UPDATE SET tasks = excluded.tasks, streams = excluded.streams,
          workflows = excluded.workflows, heartbeat_at = excluded.heartbeat_at`),
      remove: p('DELETE FROM weft_workers WHERE id = ?'),
      all: p('SELECT * FROM weft_workers ORDER BY id'),
      since: p('SELECT * FROM weft_workers WHERE heartbeat_at >= ? ORDER BY id'),
      prune: p('DELETE FROM weft_workers WHERE heartbeat_at < ?'),
      // A held message's available_at is its lease's end, so "claimable since `before`"
      // is one range of the claim index. SQLite takes `job` from the row with the minimum.
      waiting: p(`SELECT stream, count(*) AS messages, min(available_at) AS since, job
        FROM weft_messages WHERE stream >= ? AND stream < ? AND available_at <= ?
        GROUP BY stream ORDER BY stream`),
    };
  }

  putWorker(worker: NewWorkerPresence): void {
    this.s.put?.run({
      id: worker.id,
      tasks: JSON.stringify(worker.tasks),
      streams: JSON.stringify(worker.streams),
      workflows: JSON.stringify(worker.workflows),
      at: worker.at,
    });
  }

  removeWorker(id: string): boolean {
    return this.s.remove?.run(id).changes === 1;
  }

  listWorkers(since?: number): WorkerPresence[] {
    const rows = (
      since === undefined ? this.s.all?.all() : this.s.since?.all(since)
    ) as WorkerRow[];
    return rows.map(toPresence);
  }

  pruneWorkers(before: number): number {
    return this.s.prune?.run(before).changes ?? 0;
  }

  waitingStreams(prefix: string, before: number): WaitingStream[] {
    const { start, end } = prefixRange(prefix);
    const rows = this.s.waiting?.all(start, end, before) as {
      stream: string;
      messages: number;
      since: number;
      job: string | null;
    }[];
    return rows.map((r) => ({
      stream: r.stream,
      messages: r.messages,
      since: r.since,
      job: r.job,
    }));
  }
}
