/**
 * SQLite monitoring reads: jobs counted by state (over `weft_jobs_state`, or the
 * workflow's index), per-stream depths and lease expiries, dead letters by stream, the
 * history's id high-water mark (steps so far) and handler attempts.
 */
import { countConditions, jobCounts, streamStats } from '../../job-stats.js';
import type { JobCounts, JobFilter, StoreStats } from '../../records.js';
import type { OpsContext, Statement } from './context.js';

export class SqliteStats {
  private readonly counts = new Map<string, Statement>();
  private readonly messages: Statement;
  private readonly dead: Statement;
  private readonly steps: Statement;
  private readonly runs: Statement;

  constructor(private readonly ctx: OpsContext) {
    const p = (text: string) => ctx.db.prepare(text);
    this.messages = p(`SELECT stream, count(*) AS n,
        sum(consumer IS NOT NULL AND lease_until > @now) AS claimed,
        sum(consumer IS NOT NULL AND lease_until <= @now) AS expired
      FROM weft_messages GROUP BY stream`);
    this.dead = p('SELECT stream, count(*) AS n FROM weft_dead_letters GROUP BY stream');
    this.steps = p('SELECT coalesce(max(id), 0) AS n FROM weft_history');
    this.runs = p('SELECT coalesce(sum(attempt), 0) AS n FROM weft_activities');
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
      jobs: this.countJobs(),
      streams: streamStats(this.messages.all({ now }) as never, this.dead.all() as never),
      steps: this.lastStep(),
      handlerRuns: Number((this.runs.get() as { n: number }).n),
    };
  }
}
