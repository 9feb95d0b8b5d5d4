/**
 * SQLite job history: rows appended one prepared statement each, inside the caller's
 * transaction, each taking the next `seq` of its job from the (job, seq) index — so
 * several rows of one job in one call number consecutively.
 */
import { DEFAULT_HISTORY_LIMIT, type HistoryRow, historyEntry } from '../../history-row.js';
import type { HistoryEntry, HistoryQuery, NewHistoryEntry } from '../../records.js';
import { fromJson, type OpsContext, type Statement, toJson } from './context.js';

type Row = HistoryRow<string>;

const toEntry = (row: Row): HistoryEntry => historyEntry(row, fromJson(row.change));

/** History operations on one connection. */
export class SqliteHistory {
  private readonly insert: Statement;
  private readonly select: Statement;

  constructor(private readonly ctx: OpsContext) {
    const { db } = ctx;
    this.insert = db.prepare(`INSERT INTO weft_history
        (job, seq, kind, activity, dimension, change, at, worker)
      SELECT @job, COALESCE(MAX(seq), 0) + 1, @kind, @activity, @dimension, @change, @at, @worker
      FROM weft_history WHERE job = @job`);
    this.select = db.prepare(
      'SELECT * FROM weft_history WHERE job = ? AND seq > ? ORDER BY seq LIMIT ?',
    );
  }

  /** Appends lines, in order. */
  appendHistory(entries: NewHistoryEntry[]): void {
    const now = this.ctx.clock.now();
    for (const e of entries) {
      this.insert.run({
        job: e.job,
        kind: e.kind,
        activity: e.activity ?? null,
        dimension: e.dimension ?? '',
        change: toJson(e.change),
        at: Math.round(e.at ?? now),
        worker: e.worker ?? null,
      });
    }
  }

  /** A job's lines by seq. */
  historyOfJob(job: string, query: HistoryQuery = {}): HistoryEntry[] {
    const rows = this.select.all(
      job,
      query.afterSeq ?? 0,
      query.limit ?? DEFAULT_HISTORY_LIMIT,
    ) as Row[];
    return rows.map(toEntry);
  }
}
