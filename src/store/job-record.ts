/**
 * The record a new job starts as, and what a patch of it writes, the same on every
 * backend.
 */
import type { ErrorRecord, JobPatch, JobRecord, Json, NewJob, TraceContext } from './records.js';

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
    ...(job.trace && { trace: traceOf(job.trace.traceparent, job.trace.tracestate) }),
  };
}

/**
 * The trace context of a stored job's columns (`traceparent`, `tracestate`): absent
 * when it has none, so a job started without one reads as it always did.
 */
export function traceOf(
  traceparent: string | null | undefined,
  tracestate: string | null | undefined,
): TraceContext | undefined {
  if (!traceparent) return undefined;
  return tracestate ? { traceparent, tracestate } : { traceparent };
}

/** A patch made explicit: each field's value, and whether the patch gives it. */
export interface JobPatchRow {
  output: Json;
  error: ErrorRecord | null;
  context: Json;
  finishedAt: number | null;
  /** Whether the patch gave the field (even as null); the others keep their values. */
  sets: Record<keyof JobPatch, boolean>;
}

/** The explicit form of `patch`. */
export function jobPatchRow(patch: JobPatch = {}): JobPatchRow {
  return {
    output: patch.output ?? null,
    error: patch.error ?? null,
    context: patch.context ?? null,
    finishedAt: patch.finishedAt ?? null,
    sets: {
      output: patch.output !== undefined,
      error: patch.error !== undefined,
      context: patch.context !== undefined,
      finishedAt: patch.finishedAt !== undefined,
    },
  };
}
