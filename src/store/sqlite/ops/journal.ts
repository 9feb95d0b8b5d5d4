/**
 * SQLite journals: entries appended per job, numbered by the engine, read back in order.
 * The (job, seq) primary key refuses an entry written twice.
 */
import type { JournalEntry } from '../../records.js';
import { fromJson, type OpsContext, type Statement, toJson } from './context.js';

interface EntryRow {
  seq: number;
  kind: string;
  key: string;
  data: string;
}

/** Journal operations on one connection. */
export class SqliteJournal {
  private readonly insert: Statement;
  private readonly select: Statement;

  constructor(ctx: OpsContext) {
    const { db } = ctx;
    this.insert = db.prepare(
      'INSERT INTO weft_journal (job, seq, kind, key, data) VALUES (?, ?, ?, ?, ?)',
    );
    this.select = db.prepare(
      'SELECT seq, kind, key, data FROM weft_journal WHERE job = ? AND seq > ? ORDER BY seq',
    );
  }

  /** Appends entries (inside the caller's transaction). */
  appendJournal(entries: JournalEntry[]): void {
    for (const e of entries) this.insert.run(e.job, e.seq, e.kind, e.key, toJson(e.data));
  }

  /** Every entry of these jobs, by job (in id order) and seq. */
  journalsOfJobs(jobs: string[]): JournalEntry[] {
    return [...new Set(jobs)].sort().flatMap((job) => this.readJournal(job));
  }

  /** A job's entries after `afterSeq`, in order. */
  readJournal(job: string, afterSeq = 0): JournalEntry[] {
    return (this.select.all(job, afterSeq) as EntryRow[]).map((row) => ({
      job,
      seq: row.seq,
      kind: row.kind,
      key: row.key,
      data: fromJson(row.data),
    }));
  }
}
