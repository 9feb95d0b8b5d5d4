/**
 * The records outside a job's own keys that name it — a timer whose message is for it, a
 * waiter for it (or appending to it), its dead letters, the idempotency keys and debounce
 * windows that point at it — listed in the job's `owned` index as `<kind>␟<key>` when
 * they are written, so `pruneJobs` reads only a pruned job's rows, never every timer or
 * key of the store. An entry is never taken out when its record goes or moves to another
 * job: a prune checks each record still names the job before it counts or removes it.
 */
import { partitionKeys as K, SEP } from '../keys.js';
import type { RedisTx } from '../redis-tx.js';

/** What an `owned` entry points at. */
export type OwnedKind = 'timer' | 'waiter' | 'dead' | 'idem' | 'debounce';

/** Notes that the record `key` of `kind` names `job` (nothing when there is no job). */
export async function noteOwner(
  tx: RedisTx,
  job: string | null | undefined,
  kind: OwnedKind,
  key: string,
): Promise<void> {
  if (!job) return;
  tx.member(K.owned(await tx.partitionOf(job), job), `${kind}${SEP}${key}`, 0);
}

/** The records of each kind that named `job` when they were written. */
export async function ownedBy(tx: RedisTx, job: string): Promise<Map<OwnedKind, string[]>> {
  const out = new Map<OwnedKind, string[]>();
  for (const entry of await tx.zmembers(K.owned(await tx.partitionOf(job), job))) {
    const cut = entry.indexOf(SEP);
    const kind = entry.slice(0, cut) as OwnedKind;
    out.set(kind, [...(out.get(kind) ?? []), entry.slice(cut + 1)]);
  }
  return out;
}
