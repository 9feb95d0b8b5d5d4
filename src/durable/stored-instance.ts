/**
 * Reading a code-first job's instance from the store. Code above durable/ reads instances
 * only through here, so how an instance is kept (a head in the job's `context` plus its
 * journal, `instance-store.ts`) stays this folder's business.
 */
import type { JobRecord } from '../store/records.js';
import type { StoreTx } from '../store/store.js';
import type { Instance } from './instance.js';
import { loadInstance } from './instance-store.js';

/**
 * The instance of a code-first job, as stored when `tx` reads it (without a lock); null
 * for a graph job, no job, or a job with no instance yet.
 */
export async function readInstance(
  tx: Pick<StoreTx, 'getJob' | 'readJournal'>,
  job: JobRecord | string | undefined,
): Promise<Instance | null> {
  const record = typeof job === 'string' ? await tx.getJob(job) : job;
  if (!record) return null;
  return (await loadInstance(tx, record))?.instance ?? null;
}
