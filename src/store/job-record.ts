/**
 * The record a new job starts as, the same on every backend.
 */
import type { JobRecord, NewJob } from './records.js';

/** The stored form of a job being created at `createdAt`. */
export function newJobRecord(job: NewJob, createdAt: number): JobRecord {
  return {
    id: job.id,
    workflow: job.workflow,
    version: job.version,
    model: job.model,
    state: job.state ?? 'PENDING',
    input: job.input ?? null,
    output: null,
    error: null,
    context: job.context ?? null,
    parentId: job.parentId ?? null,
    parentActivity: job.parentActivity ?? null,
    createdAt,
    updatedAt: createdAt,
    finishedAt: null,
  };
}
