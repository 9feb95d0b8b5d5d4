/**
 * SQLite idempotency keys: a claim takes a key that is free (never taken, or expired)
 * in one statement; otherwise it reads the job that holds it.
 */
import type { IdempotencyClaim } from '../../records.js';
import type { OpsContext, Statement } from './context.js';

/** Idempotency key operations on one connection. */
export class SqliteIdempotency {
  private readonly s: Record<'claim' | 'holder' | 'replace' | 'prune', Statement>;

  constructor(ctx: OpsContext) {
    const p = (sql: string) => ctx.db.prepare(sql);
    this.s = {
      claim: p(`INSERT INTO weft_idempotency (workflow, key, job, expires_at)
        VALUES (@workflow, @key, @job, @expires_at)
        ON CONFLICT (workflow, key) DO UPDATE SET job = excluded.job, expires_at = excluded.expires_at
          WHERE weft_idempotency.expires_at <= @now`),
      holder: p('SELECT job FROM weft_idempotency WHERE workflow = ? AND key = ?').pluck(),
      replace: p(`INSERT OR REPLACE INTO weft_idempotency (workflow, key, job, expires_at)
        VALUES (@workflow, @key, @job, @expires_at)`),
      prune: p('DELETE FROM weft_idempotency WHERE expires_at <= ?'),
    };
  }

  claimIdempotencyKey(claim: IdempotencyClaim, now: number): string {
    const params = { ...this.params(claim), now };
    if (this.s.claim.run(params).changes === 1) return claim.job;
    return this.s.holder.get(claim.workflow, claim.key) as string;
  }

  replaceIdempotencyKey(claim: IdempotencyClaim): void {
    this.s.replace.run(this.params(claim));
  }

  pruneIdempotencyKeys(now: number): number {
    return this.s.prune.run(now).changes;
  }

  private params(claim: IdempotencyClaim) {
    return {
      workflow: claim.workflow,
      key: claim.key,
      job: claim.job,
      expires_at: claim.expiresAt,
    };
  }
}
