/**
 * PostgreSQL retention: the workflows' retention policies, and pruning finished jobs with
 * every row they left. A prune reads its families without locks, then locks their jobs
 * (`FOR UPDATE SKIP LOCKED`, in id order) and reads them again: a family with a job
 * another transaction holds, or one that is no longer ended, is kept for a later prune.
 * Nothing waits on a lock, and the locks last only as long as the prune's deletes.
 */

import { checkPruneOptions, prunableFamilies } from '../../prune-options.js';
import { PRUNED_TABLES } from '../../pruned-tables.js';
import type { PruneOptions, PruneResult, RetentionRecord } from '../../records.js';
import { type Db, sql } from './context.js';

interface RetentionRow {
  workflow: string;
  policy: RetentionRecord['policy'];
  source: string;
  updated_at: string | number;
}

interface MemberRow {
  root: string;
  id: string;
  state: string;
  finished_at: string | number | null;
}

const PUT = sql(
  'retention_put',
  `INSERT INTO weft_retention (workflow, policy, source, updated_at) VALUES ($1, $2::json, $3, $4)
   ON CONFLICT (workflow) DO UPDATE SET policy = EXCLUDED.policy, source = EXCLUDED.source,
     updated_at = EXCLUDED.updated_at`,
);
const DELETE = sql('retention_delete', 'DELETE FROM weft_retention WHERE workflow = $1');
const DELETE_FROM = sql(
  'retention_delete_from',
  'DELETE FROM weft_retention WHERE workflow = $1 AND source = $2',
);
const LIST = sql(
  'retention_list',
  'SELECT workflow, policy, source, updated_at FROM weft_retention ORDER BY workflow',
);
const TOPS = sql(
  'prune_tops',
  `SELECT id, finished_at FROM weft_jobs AS j
   WHERE finished_at IS NOT NULL AND finished_at < $1
     AND (finished_at, id) > ($2::bigint, $3::text COLLATE "C")
     AND state = ANY($4::text[])
     AND ($5::text IS NULL OR workflow = $5::text)
     AND NOT (workflow = ANY($6::text[]))
     AND (parent_id IS NULL
       OR NOT EXISTS (SELECT 1 FROM weft_jobs AS p WHERE p.id = j.parent_id))
   ORDER BY finished_at, id LIMIT $7`,
);
const FAMILY = sql(
  'prune_family',
  `WITH RECURSIVE family (root, id) AS (
     SELECT r COLLATE "C", r COLLATE "C" FROM unnest($1::text[]) AS r
     UNION ALL
     SELECT f.root, c.id FROM weft_jobs AS c JOIN family AS f ON c.parent_id = f.id
   )
   SELECT f.root, j.id, j.state, j.finished_at
   FROM family AS f JOIN weft_jobs AS j ON j.id = f.id`,
);
const LOCK = sql(
  'prune_lock',
  `SELECT id, state, finished_at FROM weft_jobs WHERE id = ANY($1::text[])
   ORDER BY id FOR UPDATE SKIP LOCKED`,
);

const whereJobs = (columns: readonly string[]) =>
  columns.map((c) => `${c} = ANY($1::text[])`).join(' OR ');
const DELETES = PRUNED_TABLES.map((t) =>
  sql(`prune_delete_${t.name}`, `DELETE FROM ${t.table} WHERE ${whereJobs(t.columns)}`),
);
const COUNTS = PRUNED_TABLES.map((t) =>
  sql(
    `prune_count_${t.name}`,
    `SELECT COUNT(*) AS n FROM ${t.table} WHERE ${whereJobs(t.columns)}`,
  ),
);

const toMember = (m: MemberRow) => ({
  root: m.root,
  id: m.id,
  state: m.state,
  finishedAt: m.finished_at === null ? null : Number(m.finished_at),
});

/** Retention operations. */
export const retention = {
  async putRetention(db: Db, record: Omit<RetentionRecord, 'updatedAt'>): Promise<void> {
    await db.count(PUT, [
      record.workflow,
      JSON.stringify(record.policy),
      record.source,
      db.clock.now(),
    ]);
  },

  async deleteRetention(
    db: Db,
    workflow: string,
    source?: RetentionRecord['source'],
  ): Promise<boolean> {
    const n = source
      ? await db.count(DELETE_FROM, [workflow, source])
      : await db.count(DELETE, [workflow]);
    return n > 0;
  },

  async listRetentions(db: Db): Promise<RetentionRecord[]> {
    return (await db.rows<RetentionRow>(LIST, [])).map((row) => ({
      workflow: row.workflow,
      policy: row.policy,
      source: row.source as RetentionRecord['source'],
      updatedAt: Number(row.updated_at),
    }));
  },

  /** Run atomically: the lock, the second read and the deletes share one transaction. */
  async pruneJobs(db: Db, options: PruneOptions): Promise<PruneResult> {
    const o = checkPruneOptions(options);
    const tops = await db.rows<{ id: string; finished_at: string | number }>(TOPS, [
      o.endedBefore,
      o.after.finishedAt,
      o.after.id,
      o.states,
      o.workflow,
      o.exceptWorkflows,
      o.limit,
    ]);
    const last = tops[tops.length - 1];
    const next =
      tops.length === o.limit && last
        ? { finishedAt: Number(last.finished_at), id: last.id }
        : undefined;
    const members = (await db.rows<MemberRow>(FAMILY, [tops.map((t) => t.id)])).map(toMember);
    let families = prunableFamilies(members, o.endedBefore);
    if (!o.dryRun && families.size > 0) {
      // Lock what may go, and read it again under the lock: a job reopened meanwhile, or
      // held by another transaction (skipped, so not returned), keeps its whole family.
      const rootOf = new Map(members.map((m) => [m.id, m.root]));
      const locked = await db.rows<Omit<MemberRow, 'root'>>(LOCK, [[...families.values()].flat()]);
      const again = locked.map((m) => toMember({ ...m, root: rootOf.get(m.id) as string }));
      const wanted = families;
      families = prunableFamilies(again, o.endedBefore);
      for (const [root, family] of families) {
        if (family.length !== wanted.get(root)?.length) families.delete(root);
      }
    }
    const jobs = [...families.values()].flat();
    const rows: Record<string, number> = {};
    for (const [i, t] of PRUNED_TABLES.entries()) {
      if (jobs.length === 0) rows[t.name] = 0;
      else if (o.dryRun) {
        const [counted] = await db.rows<{ n: string }>(COUNTS[i] as never, [jobs]);
        rows[t.name] = Number(counted?.n ?? 0);
      } else rows[t.name] = await db.count(DELETES[i] as never, [jobs]);
    }
    return { jobs, rows, ...(next && { next }) };
  },
};
