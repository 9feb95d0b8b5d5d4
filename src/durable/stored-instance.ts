/**
 * Reading a code-first job's instance from the store. Code above durable/ reads instances
 * only through here, so how an instance is kept (today: in its job's `context`) stays
 * this folder's business.
 */
import type { JobRecord } from '../store/records.js';
import type { StoreTx } from '../store/store.js';
import type { Instance } from './instance.js';

/**
 * The instance of a code-first job, as stored when `tx` reads it; null for a graph job,
 * no job, or a job with no instance yet.
 */
export async function readInstance(
  tx: Pick<StoreTx, 'getJob'>,
  job: JobRecord | string | undefined,
): Promise<Instance | null> {
  const record = typeof job === 'string' ? await tx.getJob(job) : job;
  if (record?.model !== 'durable') return null;
  return (record.context as unknown as Instance | null) ?? null;
}
