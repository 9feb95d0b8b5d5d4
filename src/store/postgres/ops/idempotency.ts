/**
 * PostgreSQL idempotency keys: a claim takes a key that is free (never taken, or
 * expired) in one statement, or finds the job that holds it; either way the row stays
 * locked to the end of the transaction, so a second start with the key waits for the
 * first to commit and then finds its job.
 */
import type { IdempotencyClaim } from '../../records.js';
import { type Db, sql } from './context.js';

const CLAIM = sql(
  'idempotency_claim',
  `INSERT INTO weft_idempotency AS i (workflow, key, job, expires_at) VALUES ($1, $2, $3, $4)
   ON CONFLICT (workflow, key) DO UPDATE SET job = EXCLUDED.job, expires_at = EXCLUDED.expires_at
     WHERE i.expires_at <= $5
   RETURNING job`,
);
const HOLDER = sql(
  'idempotency_holder',
  'SELECT job FROM weft_idempotency WHERE workflow = $1 AND key = $2 FOR UPDATE',
);
const REPLACE = sql(
  'idempotency_replace',
  `INSERT INTO weft_idempotency (workflow, key, job, expires_at) VALUES ($1, $2, $3, $4)
   ON CONFLICT (workflow, key) DO UPDATE SET job = EXCLUDED.job, expires_at = EXCLUDED.expires_at`,
);
const PRUNE = sql('idempotency_prune', 'DELETE FROM weft_idempotency WHERE expires_at <= $1');

/** Idempotency key operations. */
export const idempotency = {
  async claimIdempotencyKey(db: Db, claim: IdempotencyClaim, now: number): Promise<string> {
    const values = [claim.workflow, claim.key, claim.job, claim.expiresAt];
    const [taken] = await db.rows<{ job: string }>(CLAIM, [...values, now]);
    if (taken) return taken.job;
    const [held] = await db.rows<{ job: string }>(HOLDER, [claim.workflow, claim.key]);
    return held?.job ?? claim.job;
  },

  async replaceIdempotencyKey(db: Db, claim: IdempotencyClaim): Promise<void> {
    await db.count(REPLACE, [claim.workflow, claim.key, claim.job, claim.expiresAt]);
  },

  async pruneIdempotencyKeys(db: Db, now: number): Promise<number> {
    return db.count(PRUNE, [now]);
  },
};
