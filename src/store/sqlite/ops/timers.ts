/**
 * SQLite timers: durable wake-ups keyed by name. Firing moves each due timer's message
 * into its stream and deletes the timer in the same transaction, so with SQLite's single
 * writer a timer fires once however many processes fire timers.
 */
import type { FiredTimer, NewTimer } from '../../records.js';
import { countOption, DEFAULT_PAGE } from '../../stream-options.js';
import { fromJson, type OpsContext, type Statement, toJson } from './context.js';
import type { SqliteStreams } from './streams.js';

interface TimerRow {
  key: string;
  at: number;
  stream: string;
  job: string | null;
  payload: string;
  available_at: number | null;
}

/** Timer operations on one connection. */
export class SqliteTimers {
  private readonly upsert: Statement;
  private readonly remove: Statement;
  private readonly due: Statement;
  private readonly next: Statement;

  constructor(
    ctx: OpsContext,
    private readonly streams: SqliteStreams,
  ) {
    const { db } = ctx;
    this.upsert = db.prepare(`INSERT INTO weft_timers (key, at, stream, job, payload, available_at)
      VALUES (?, ?, ?, ?, ?, ?)
      ON CONFLICT (key) DO UPDATE SET at = excluded.at, stream = excluded.stream,
        job = excluded.job, payload = excluded.payload, available_at = excluded.available_at`);
    this.remove = db.prepare('DELETE FROM weft_timers WHERE key = ?');
    this.due = db.prepare('SELECT * FROM weft_timers WHERE at <= ? ORDER BY at, key LIMIT ?');
    this.next = db.prepare('SELECT MIN(at) FROM weft_timers').pluck();
  }

  /** Schedules a timer, replacing one with the same key. */
  scheduleTimer(timer: NewTimer): void {
    const m = timer.message;
    this.upsert.run(
      timer.key,
      timer.at,
      m.stream,
      m.job ?? null,
      toJson(m.payload),
      m.availableAt ?? null,
    );
  }

  /** Cancels a pending timer. */
  cancelTimer(key: string): boolean {
    return this.remove.run(key).changes === 1;
  }

  /** Fires up to `max` timers due at `now`, oldest first. */
  fireDueTimers(now: number, max?: number): FiredTimer[] {
    const batch = countOption(max, DEFAULT_PAGE);
    if (batch === 0) return [];
    const rows = this.due.all(now, batch) as TimerRow[];
    const fired: FiredTimer[] = [];
    for (const row of rows) {
      const messageId = this.streams.appendOne({
        stream: row.stream,
        job: row.job,
        payload: fromJson(row.payload),
        ...(row.available_at === null ? {} : { availableAt: row.available_at }),
      });
      this.remove.run(row.key);
      fired.push({ key: row.key, at: row.at, messageId });
    }
    return fired;
  }

  /** When the next timer is due. */
  nextTimerAt(): number | undefined {
    const at = this.next.get() as number | null;
    return at ?? undefined;
  }
}
