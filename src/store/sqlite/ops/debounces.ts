/**
 * SQLite debounce windows: a claim writes a window when its key has none, or reads the
 * one it has (a write transaction holds the database, so two claims never interleave).
 */
import type { DebounceMode, DebounceRecord } from '../../records.js';
import type { OpsContext, Statement } from './context.js';

interface DebounceRow {
  workflow: string;
  key: string;
  job: string;
  mode: string;
  first_at: number;
  until_at: number;
  starts: number;
  held: string;
}

function toWindow(row: DebounceRow): DebounceRecord {
  return {
    workflow: row.workflow,
    key: row.key,
    job: row.job,
    mode: row.mode as DebounceMode,
    firstAt: row.first_at,
    untilAt: row.until_at,
    starts: row.starts,
    held: JSON.parse(row.held),
  };
}

const COLUMNS = 'workflow, key, job, mode, first_at, until_at, starts, held';
const VALUES = '@workflow, @key, @job, @mode, @first_at, @until_at, @starts, @held';

/** Debounce window operations on one connection. */
export class SqliteDebounces {
  private readonly s: Record<'claim' | 'get' | 'put' | 'prune', Statement>;

  constructor(ctx: OpsContext) {
    const p = (sql: string) => ctx.db.prepare(sql);
    this.s = {
      claim: p(`INSERT INTO weft_debounces (${COLUMNS}) VALUES (${VALUES})
        ON CONFLICT (workflow, key) DO NOTHING`),
      get: p(`SELECT ${COLUMNS} FROM weft_debounces WHERE workflow = ? AND key = ?`),
      put: p(`INSERT OR REPLACE INTO weft_debounces (${COLUMNS}) VALUES (${VALUES})`),
      prune: p('DELETE FROM weft_debounces WHERE until_at < ?'),
    };
  }

  claimDebounce(window: DebounceRecord): DebounceRecord {
    if (this.s.claim.run(this.params(window)).changes === 1) return window;
    return toWindow(this.s.get.get(window.workflow, window.key) as DebounceRow);
  }

  putDebounce(window: DebounceRecord): void {
    this.s.put.run(this.params(window));
  }

  pruneDebounces(before: number): number {
    return this.s.prune.run(before).changes;
  }

  private params(w: DebounceRecord) {
    return {
      workflow: w.workflow,
      key: w.key,
      job: w.job,
      mode: w.mode,
      first_at: w.firstAt,
      until_at: w.untilAt,
      starts: w.starts,
      held: JSON.stringify(w.held),
    };
  }
}
