/**
 * Redis idempotency keys and debounce windows: one hash each in `{g}`, field
 * `workflow␟key`, value the record as JSON. A claim reads the field and the commit
 * checks it is unchanged, so two starts with one key run one after the other (the one
 * that lost runs again and finds the other's record), as the SQL stores' row lock does.
 */
import type { DebounceRecord, IdempotencyClaim } from '../../records.js';
import { globalKeys as G, SEP } from '../keys.js';
import type { RedisTx } from '../redis-tx.js';
import { noteOwner } from './owned.js';

interface Held {
  job: string;
  expiresAt: number;
}

const field = (workflow: string, key: string) => `${workflow}${SEP}${key}`;

/** Takes a free (or expired) key for `claim.job`; returns the job holding it after. */
export async function claimIdempotencyKey(
  tx: RedisTx,
  claim: IdempotencyClaim,
  now: number,
): Promise<string> {
  const f = field(claim.workflow, claim.key);
  const text = await tx.hgetChecked(G.idempotency, f);
  const held = text === undefined ? undefined : (JSON.parse(text) as Held);
  if (held && held.expiresAt > now) return held.job;
  await replaceIdempotencyKey(tx, claim);
  return claim.job;
}

/** Gives a key to `claim.job` whoever held it. */
export async function replaceIdempotencyKey(tx: RedisTx, claim: IdempotencyClaim): Promise<void> {
  const held: Held = { job: claim.job, expiresAt: claim.expiresAt };
  const f = field(claim.workflow, claim.key);
  tx.hset(G.idempotency, [[f, JSON.stringify(held)]]);
  await noteOwner(tx, claim.job, 'idem', f);
}

/** Deletes the keys expired by `now`; returns how many. */
export async function pruneIdempotencyKeys(tx: RedisTx, now: number): Promise<number> {
  let pruned = 0;
  for (const [f, text] of await tx.hgetall(G.idempotency)) {
    if ((JSON.parse(text) as Held).expiresAt > now) continue;
    await tx.hgetChecked(G.idempotency, f);
    tx.hset(G.idempotency, [[f, null]]);
    pruned++;
  }
  return pruned;
}

/** Writes `window` when its workflow and key have none; returns the window stored after. */
export async function claimDebounce(tx: RedisTx, window: DebounceRecord): Promise<DebounceRecord> {
  const text = await tx.hgetChecked(G.debounces, field(window.workflow, window.key));
  if (text !== undefined) return JSON.parse(text) as DebounceRecord;
  await putDebounce(tx, window);
  return window;
}

/** Writes a window whole. */
export async function putDebounce(tx: RedisTx, window: DebounceRecord): Promise<void> {
  const f = field(window.workflow, window.key);
  tx.hset(G.debounces, [[f, JSON.stringify(window)]]);
  await noteOwner(tx, window.job, 'debounce', f);
}

/** Deletes the windows that closed before `before`; returns how many. */
export async function pruneDebounces(tx: RedisTx, before: number): Promise<number> {
  let pruned = 0;
  for (const [f, text] of await tx.hgetall(G.debounces)) {
    if ((JSON.parse(text) as DebounceRecord).untilAt >= before) continue;
    await tx.hgetChecked(G.debounces, f);
    tx.hset(G.debounces, [[f, null]]);
    pruned++;
  }
  return pruned;
}
