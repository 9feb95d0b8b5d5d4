/**
 * Redis journals: a hash per job, `weft:{p}:jrnl:<job>`, seq → the entry as JSON. An
 * entry is written once: appending a seq that exists (stored, or earlier in the same
 * transaction) fails with `StoreError`, and the commit checks again that it is still
 * new (another transaction may have written it meanwhile: then this one runs again, and
 * finds it). An entry that exists already when the transaction has locked a job another
 * commit has written since is a stale plan, not a duplicate: the transaction runs again
 * (a lock on Redis keeps nobody out, so a journal read after the lock can show entries
 * the locked head does not count yet).
 */
import { StoreError } from '../../../core/errors.js';
import type { JournalEntry, Json } from '../../records.js';
import { partitionKeys as K } from '../keys.js';
import type { RedisTx } from '../redis-tx.js';

async function keyOf(tx: RedisTx, job: string): Promise<string> {
  return K.journal(await tx.partitionOf(job), job);
}

/** Appends entries (all or none). */
export async function appendJournal(tx: RedisTx, entries: JournalEntry[]): Promise<void> {
  const batch = new Set<string>();
  for (const e of entries) {
    const id = `${e.job}\u0000${e.seq}`;
    const stored = await tx.hget(await keyOf(tx, e.job), String(e.seq));
    if (!batch.has(id) && stored !== undefined) {
      const moved = await tx.revisionMoved();
      if (moved) tx.doom(moved);
    }
    if (batch.has(id) || stored !== undefined) {
      throw new StoreError(`journal entry ${e.seq} of job ${e.job} exists; entries never change`, {
        code: 'STORE_DUPLICATE',
      });
    }
    batch.add(id);
  }
  for (const e of entries) {
    const text = JSON.stringify({ kind: e.kind, key: e.key, data: e.data });
    const key = await keyOf(tx, e.job);
    tx.hset(key, [[String(e.seq), text]]);
    tx.requireNew(key, String(e.seq));
  }
}

/** Every entry of these jobs' journals, jobs in id order, each job's in seq order. */
export async function journalsOfJobs(tx: RedisTx, jobs: string[]): Promise<JournalEntry[]> {
  const ids = [...new Set(jobs)].sort();
  const journals = await Promise.all(ids.map((job) => readJournal(tx, job)));
  return journals.flat();
}

/** A job's entries after `afterSeq`, in order. */
export async function readJournal(tx: RedisTx, job: string, afterSeq = 0): Promise<JournalEntry[]> {
  const stored = await tx.hgetall(await keyOf(tx, job));
  return [...stored]
    .map(([seq, text]) => ({ seq: Number(seq), text }))
    .filter((e) => e.seq > afterSeq)
    .sort((x, y) => x.seq - y.seq)
    .map(({ seq, text }) => {
      const { kind, key, data } = JSON.parse(text) as { kind: string; key: string; data: Json };
      return { job, seq, kind, key, data };
    });
}
