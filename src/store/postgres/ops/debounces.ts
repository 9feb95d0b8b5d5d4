/**
 * PostgreSQL debounce windows: a claim writes a window when its key has none, or finds
 * the one it has; either way the row stays locked to the end of the transaction, so a
 * second start with the key waits for the first to commit and then finds its window.
 */
import type { DebounceMode, DebounceRecord, NewMessage } from '../../records.js';
import { type Db, sql } from './context.js';

interface DebounceRow {
  workflow: string;
  key: string;
  job: string;
  mode: string;
  first_at: string | number;
  until_at: string | number;
  starts: number;
  held: NewMessage[];
}

function toWindow(row: DebounceRow): DebounceRecord {
  return {
    workflow: row.workflow,
    key: row.key,
    job: row.job,
    mode: row.mode as DebounceMode,
    firstAt: Number(row.first_at),
    untilAt: Number(row.until_at),
    starts: Number(row.starts),
    held: row.held,
  };
}

const COLUMNS = 'workflow, key, job, mode, first_at, until_at, starts, held';
const CLAIM = sql(
  'debounce_claim',
  `INSERT INTO weft_debounces (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb)
   ON CONFLICT (workflow, key) DO NOTHING
   RETURNING ${COLUMNS}`,
);
const LOCK = sql(
  'debounce_lock',
  `SELECT ${COLUMNS} FROM weft_debounces WHERE workflow = $1 AND key = $2 FOR UPDATE`,
);
const PUT = sql(
  'debounce_put',
  `INSERT INTO weft_debounces (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb)
   ON CONFLICT (workflow, key) DO UPDATE SET job = EXCLUDED.job, mode = EXCLUDED.mode,
     first_at = EXCLUDED.first_at, until_at = EXCLUDED.until_at, starts = EXCLUDED.starts,
     held = EXCLUDED.held`,
);
const PRUNE = sql('debounce_prune', 'DELETE FROM weft_debounces WHERE until_at < $1');

const values = (w: DebounceRecord) => [
  w.workflow,
  w.key,
  w.job,
  w.mode,
  w.firstAt,
  w.untilAt,
  w.starts,
  JSON.stringify(w.held),
];

/** Debounce window operations. */
export const debounces = {
  async claimDebounce(db: Db, window: DebounceRecord): Promise<DebounceRecord> {
    const [written] = await db.rows<DebounceRow>(CLAIM, values(window));
    if (written) return toWindow(written);
    const [held] = await db.rows<DebounceRow>(LOCK, [window.workflow, window.key]);
    // Deleted between the two statements (a prune): the claim is free to write it.
    if (!held) return debounces.claimDebounce(db, window);
    return toWindow(held);
  },

  async putDebounce(db: Db, window: DebounceRecord): Promise<void> {
    await db.count(PUT, values(window));
  },

  async pruneDebounces(db: Db, before: number): Promise<number> {
    return db.count(PRUNE, [before]);
  },
};
