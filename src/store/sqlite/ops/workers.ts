/**
 * SQLite workers: each running worker's row — what it serves and its last heartbeat —
 * and the streams whose messages have been waiting, unheld, since a given time.
 */
import type { NewWorkerPresence, WaitingStream, WorkerPresence } from '../../records.js';
import { prefixRange, WAITING_COUNT_CAP } from '../../stream-prefix.js';
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
      // The streams of a prefix, one index probe each (a skip over the claim index).
      first: p(`SELECT stream FROM weft_messages WHERE stream >= ? AND stream < ?
        ORDER BY stream LIMIT 1`),
      next: p(`SELECT stream FROM weft_messages WHERE stream > ? AND stream < ?
        ORDER BY stream LIMIT 1`),
      // A held message's available_at is its lease's end, so "claimable since `before`"
      // is one range of the claim index.
      oldest: p(`SELECT job, available_at FROM weft_messages
        WHERE stream = ? AND available_at <= ? ORDER BY available_at, id LIMIT 1`),
      count: p(`SELECT count(*) FROM (SELECT 1 FROM weft_messages
        WHERE stream = ? AND available_at <= ? LIMIT ?)`).pluck(),
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

  waitingStreams(prefix: string, before: number, skip: readonly string[] = []): WaitingStream[] {
    const { start, end } = prefixRange(prefix);
    const skipped = new Set(skip);
    const out: WaitingStream[] = [];
    let row = this.s.first?.get(start, end) as { stream: string } | undefined;
    while (row) {
      const { stream } = row;
      if (!skipped.has(stream)) {
        const oldest = this.s.oldest?.get(stream, before) as
          | { job: string | null; available_at: number }
          | undefined;
        if (oldest) {
          const messages = this.s.count?.get(stream, before, WAITING_COUNT_CAP) as number;
          out.push({ stream, messages, since: oldest.available_at, job: oldest.job });
        }
      }
      row = this.s.next?.get(stream, end) as { stream: string } | undefined;
    }
    return out;
  }
}
