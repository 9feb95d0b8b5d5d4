/**
 * PostgreSQL journals: entries appended per job in one statement (`unnest` of parallel
 * arrays), read back in order. The (job, seq) primary key refuses an entry written twice.
 */
import type { JournalEntry, Json } from '../../records.js';
import { type Db, sql, toJson } from './context.js';

interface EntryRow {
  seq: number;
  kind: string;
  key: string;
  data: Json;
}

const INSERT = sql(
  'journal_append',
  `INSERT INTO weft_journal (job, seq, kind, key, data)
   SELECT job, seq, kind, key, data::json
   FROM unnest($1::text[], $2::int[], $3::text[], $4::text[], $5::text[])
     AS u(job, seq, kind, key, data)`,
);
const SELECT = sql(
  'journal_read',
  'SELECT seq, kind, key, data FROM weft_journal WHERE job = $1 AND seq > $2 ORDER BY seq',
);

const SELECT_JOBS = sql(
  'journal_read_jobs',
  `SELECT job, seq, kind, key, data FROM weft_journal WHERE job = ANY($1::text[])
   ORDER BY job COLLATE "C", seq`,
);

/** Journal operations. */
export const journal = {
  /** Appends entries in one statement. */
  async appendJournal(db: Db, entries: JournalEntry[]): Promise<void> {
    if (entries.length === 0) return;
    await db.count(INSERT, [
      entries.map((e) => e.job),
      entries.map((e) => e.seq),
      entries.map((e) => e.kind),
      entries.map((e) => e.key),
      entries.map((e) => toJson(e.data)),
    ]);
  },

  /** Every entry of these jobs, by job (in id order) and seq, in one statement. */
  async journalsOfJobs(db: Db, jobs: string[]): Promise<JournalEntry[]> {
    if (jobs.length === 0) return [];
    const rows = await db.rows<EntryRow & { job: string }>(SELECT_JOBS, [[...new Set(jobs)]]);
    return rows.map((row) => ({
      job: row.job,
      seq: row.seq,
      kind: row.kind,
      key: row.key,
      data: row.data,
    }));
  },

  /** A job's entries after `afterSeq`, in order. */
  async readJournal(db: Db, job: string, afterSeq = 0): Promise<JournalEntry[]> {
    const rows = await db.rows<EntryRow>(SELECT, [job, afterSeq]);
    return rows.map((row) => ({ job, seq: row.seq, kind: row.kind, key: row.key, data: row.data }));
  },
};
