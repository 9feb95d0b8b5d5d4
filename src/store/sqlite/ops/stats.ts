/**
 * SQLite monitoring reads: jobs counted by state (over `weft_jobs_state`, or the
 * workflow's index), per-stream depths and lease expiries, dead letters by stream and the
 * history's id high-water mark (steps so far). `storeStats`, read at every `/metrics`
 * scrape, counts unfinished jobs only (a range of the state index), so its cost does not
 * grow with the finished jobs the store keeps.
 */
import { UNFINISHED_FLOW_STATES } from '../../../core/states.js';
import { countConditions, jobCounts, streamStats } from '../../job-stats.js';
import type { JobCounts, JobFilter, StoreStats } from '../../records.js';
import type { OpsContext, Statement } from './context.js';

/** The SQL of `storeStats`'s reads (exported for the test that reads their query plans). */
export const SQLITE_STATS_SQL = {
  unfinished: `SELECT state, count(*) AS n FROM weft_jobs
    WHERE state IN (${UNFINISHED_FLOW_STATES.map((s) => `'${s}'`).join(', ')}) GROUP BY state`,
  messages: `SELECT stream, count(*) AS n,
      sum(consumer IS NOT NULL AND lease_until > @now) AS claimed,
      sum(consumer IS NOT NULL AND lease_until <= @now) AS expired
    FROM weft_messages GROUP BY stream`,
  dead: 'SELECT stream, count(*) AS n FROM weft_dead_letters GROUP BY stream',
  steps: 'SELECT coalesce(max(id), 0) AS n FROM weft_history',
};

export class SqliteStats {
  private readonly counts = new Map<string, Statement>();
  private readonly messages: Statement;
  private readonly dead: Statement;
  private readonly steps: Statement;
  private readonly unfinished: Statement;

  constructor(private readonly ctx: OpsContext) {
    const p = (text: string) => ctx.db.prepare(text);
    this.unfinished = p(SQLITE_STATS_SQL.unfinished);
    this.messages = p(SQLITE_STATS_SQL.messages);
    this.dead = p(SQLITE_STATS_SQL.dead);
    this.steps = p(SQLITE_STATS_SQL.steps);
  }

  countJobs(filter: JobFilter = {}): JobCounts {
    const conditions = countConditions(filter);
    const where = conditions.map((c) => `${c.column} ${c.op} ?`).join(' AND ');
    const text = `SELECT state, count(*) AS n FROM weft_jobs${where ? ` WHERE ${where}` : ''} GROUP BY state`;
    let statement = this.counts.get(text);
    if (!statement) {
      statement = this.ctx.db.prepare(text);
      this.counts.set(text, statement);
    }
    return jobCounts(statement.all(...conditions.map((c) => c.value)) as never);
  }

  lastStep(): number {
    return Number((this.steps.get() as { n: number }).n);
  }

  storeStats(now: number): StoreStats {
    return {
      jobs: jobCounts(this.unfinished.all() as never),
      streams: streamStats(this.messages.all({ now }) as never, this.dead.all() as never),
      steps: this.lastStep(),
    };
  }
}
