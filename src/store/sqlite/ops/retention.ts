/**
 * SQLite retention: the workflows' retention policies, and pruning finished jobs with
 * every row they left. A prune is one synchronous operation under the write lock (the
 * caller's limit keeps it short): no other writer runs between reading a family and
 * deleting it, so what it read still holds when it deletes.
 */

import { checkPruneOptions, prunableFamilies } from '../../prune-options.js';
import { PRUNED_TABLES } from '../../pruned-tables.js';
import type { PruneResult, RetentionRecord } from '../../records.js';
import type { PruneOptions } from '../../store.js';
import type { OpsContext, Statement } from './context.js';

interface RetentionRow {
  workflow: string;
  policy: string;
  source: string;
  updated_at: number;
}

interface MemberRow {
  root: string;
  id: string;
  state: string;
  finished_at: number | null;
}

/** Rows of `table` naming one of the jobs in `@ids` (a JSON array). */
function whereJobs(columns: readonly string[]): string {
  return columns.map((c) => `${c} IN (SELECT value FROM json_each(@ids))`).join(' OR ');
}

/** Retention operations on one connection. */
export class SqliteRetention {
  private readonly s: Record<
    'put' | 'delete' | 'deleteFrom' | 'list' | 'tops' | 'family',
    Statement
  >;
  private readonly deletes: Statement[];
  private readonly counts: Statement[];

  constructor(private readonly ctx: OpsContext) {
    const p = (sql: string) => ctx.db.prepare(sql);
    this.s = {
      put: p(`INSERT OR REPLACE INTO weft_retention (workflow, policy, source, updated_at)
        VALUES (@workflow, @policy, @source, @updated_at)`),
      delete: p('DELETE FROM weft_retention WHERE workflow = ?'),
      deleteFrom: p('DELETE FROM weft_retention WHERE workflow = ? AND source = ?'),
      list: p('SELECT workflow, policy, source, updated_at FROM weft_retention ORDER BY workflow'),
      // Top jobs: no parent, or a parent that is gone. The index on (finished_at, id)
      // gives them in order; the cursor resumes after the last one looked at.
      tops: p(`SELECT id, finished_at FROM weft_jobs AS j
        WHERE finished_at IS NOT NULL AND finished_at < @before
          AND (finished_at, id) > (@after_at, @after_id)
          AND state IN (SELECT value FROM json_each(@states))
          AND (@workflow IS NULL OR workflow = @workflow)
          AND workflow NOT IN (SELECT value FROM json_each(@except))
          AND (parent_id IS NULL
            OR NOT EXISTS (SELECT 1 FROM weft_jobs AS p WHERE p.id = j.parent_id))
        ORDER BY finished_at, id LIMIT @limit`),
      family: p(`WITH RECURSIVE family (root, id) AS (
          SELECT value, value FROM json_each(@roots)
          UNION ALL
          SELECT f.root, c.id FROM weft_jobs AS c JOIN family AS f ON c.parent_id = f.id
        )
        SELECT f.root, j.id, j.state, j.finished_at
        FROM family AS f JOIN weft_jobs AS j ON j.id = f.id`),
    };
    this.deletes = PRUNED_TABLES.map((t) =>
      p(`DELETE FROM ${t.table} WHERE ${whereJobs(t.columns)}`),
    );
    this.counts = PRUNED_TABLES.map((t) =>
      p(`SELECT COUNT(*) FROM ${t.table} WHERE ${whereJobs(t.columns)}`).pluck(),
    );
  }

  putRetention(record: Omit<RetentionRecord, 'updatedAt'>): void {
    this.s.put.run({
      workflow: record.workflow,
      policy: JSON.stringify(record.policy),
      source: record.source,
      updated_at: this.ctx.clock.now(),
    });
  }

  deleteRetention(workflow: string, source?: RetentionRecord['source']): boolean {
    const run = source ? this.s.deleteFrom.run(workflow, source) : this.s.delete.run(workflow);
    return run.changes > 0;
  }

  listRetentions(): RetentionRecord[] {
    return (this.s.list.all() as RetentionRow[]).map((row) => ({
      workflow: row.workflow,
      policy: JSON.parse(row.policy),
      source: row.source as RetentionRecord['source'],
      updatedAt: Number(row.updated_at),
    }));
  }

  pruneJobs(options: PruneOptions): PruneResult {
    const o = checkPruneOptions(options);
    const tops = this.s.tops.all({
      before: o.endedBefore,
      after_at: o.after.finishedAt,
      after_id: o.after.id,
      states: JSON.stringify(o.states),
      workflow: o.workflow,
      except: JSON.stringify(o.exceptWorkflows),
      limit: o.limit,
    }) as { id: string; finished_at: number }[];
    const last = tops[tops.length - 1];
    const next =
      tops.length === o.limit && last
        ? { finishedAt: Number(last.finished_at), id: last.id }
        : undefined;
    const members = (
      this.s.family.all({ roots: JSON.stringify(tops.map((t) => t.id)) }) as MemberRow[]
    ).map((m) => ({
      root: m.root,
      id: m.id,
      state: m.state,
      finishedAt: m.finished_at === null ? null : Number(m.finished_at),
    }));
    const families = prunableFamilies(members, o.endedBefore);
    const jobs = [...families.values()].flat();
    const rows: Record<string, number> = {};
    const ids = JSON.stringify(jobs);
    PRUNED_TABLES.forEach((t, i) => {
      if (jobs.length === 0) rows[t.name] = 0;
      else if (o.dryRun) rows[t.name] = Number((this.counts[i] as Statement).get({ ids }));
      else rows[t.name] = (this.deletes[i] as Statement).run({ ids }).changes;
    });
    return { jobs, rows, ...(next && { next }) };
  }
}
