/**
 * PostgreSQL monitoring reads: jobs counted by state (over `weft_jobs_state`, or the
 * workflow's index), per-stream depths and lease expiries, dead letters by stream and the
 * history's id high-water mark (steps so far). `storeStats`, read at every `/metrics`
 * scrape, counts unfinished jobs only (a range of the state index), so its cost does not
 * grow with the finished jobs the store keeps.
 */
import { UNFINISHED_FLOW_STATES } from '../../../core/states.js';
import { countConditions, jobCounts, streamStats } from '../../job-stats.js';
import type { JobCounts, JobFilter, StoreStats } from '../../records.js';
import { type Db, type Statement, sql } from './context.js';

const counts = new Map<string, Statement>();
const MESSAGES = sql(
  'stats_messages',
  `SELECT stream, count(*)::int AS n,
      count(*) FILTER (WHERE consumer IS NOT NULL AND lease_until > $1::bigint)::int AS claimed,
      count(*) FILTER (WHERE consumer IS NOT NULL AND lease_until <= $1::bigint)::int AS expired
    FROM weft_messages GROUP BY stream`,
);
const DEAD = sql(
  'stats_dead',
  'SELECT stream, count(*)::int AS n FROM weft_dead_letters GROUP BY stream',
);
const STEPS = sql('stats_steps', 'SELECT coalesce(max(id), 0)::bigint AS n FROM weft_history');
const UNFINISHED = sql(
  'stats_unfinished',
  'SELECT state, count(*)::int AS n FROM weft_jobs WHERE state = ANY($1::text[]) GROUP BY state',
);

export const stats = {
  async countJobs(db: Db, filter: JobFilter = {}): Promise<JobCounts> {
    const conditions = countConditions(filter);
    const where = conditions
      .map((c, i) => `${c.column} ${c.op} $${i + 1}${c.column === 'created_at' ? '::bigint' : ''}`)
      .join(' AND ');
    const text = `SELECT state, count(*)::int AS n FROM weft_jobs${where ? ` WHERE ${where}` : ''} GROUP BY state`;
    let statement = counts.get(text);
    if (!statement) {
      statement = sql(`job_count_${counts.size}`, text);
      counts.set(text, statement);
    }
    return jobCounts(
      await db.rows<{ state: string; n: number }>(
        statement,
        conditions.map((c) => c.value),
      ),
    );
  },

  async lastStep(db: Db): Promise<number> {
    const [row] = await db.rows<{ n: string }>(STEPS, []);
    return Number(row?.n ?? 0);
  },

  async storeStats(db: Db, now: number): Promise<StoreStats> {
    const [messages, dead, [steps], unfinished] = [
      await db.rows<{ stream: string; n: number; claimed: number; expired: number }>(MESSAGES, [
        now,
      ]),
      await db.rows<{ stream: string; n: number }>(DEAD, []),
      await db.rows<{ n: string }>(STEPS, []),
      await db.rows<{ state: string; n: number }>(UNFINISHED, [[...UNFINISHED_FLOW_STATES]]),
    ];
    return {
      jobs: jobCounts(unfinished),
      streams: streamStats(messages, dead),
      steps: Number(steps?.n ?? 0),
    };
  },
};
