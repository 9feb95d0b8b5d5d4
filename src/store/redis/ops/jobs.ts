/**
 * Redis job operations: a job is a hash (`weft:{p}:job:<id>`, one field per column, each
 * holding its value as JSON text) and a member of its partition's job index. Creates,
 * moves and patches read the job's revision first, so two transactions that decide on
 * the same job cannot both commit (docs/store-redis.md, section 1).
 */
import { NotFoundError } from '../../../core/errors.js';
import type { FlowState } from '../../../core/states.js';
import { jobMove } from '../../job-move.js';
import { type JobQuery, jobQuery } from '../../job-query.js';
import { jobPatchRow, newJobRecord } from '../../job-record.js';
import type { JobCounts, JobFilter, JobPatch, JobRecord, Json, NewJob } from '../../records.js';
import { partitionKeys as K } from '../keys.js';
import type { RedisTx } from '../redis-tx.js';
import { jobEnded } from './queues.js';

/** The job's hash fields from its record. */
function toFields(job: JobRecord): [string, string][] {
  const fields: [string, string][] = [];
  for (const [name, value] of Object.entries(job)) {
    if (name === 'trace') continue;
    fields.push([name, JSON.stringify(value)]);
  }
  if (job.trace) {
    fields.push(['traceparent', JSON.stringify(job.trace.traceparent)]);
    if (job.trace.tracestate) fields.push(['tracestate', JSON.stringify(job.trace.tracestate)]);
  }
  return fields;
}

/** The record of a job's hash fields; undefined when it has none (no such job). */
export function toJob(fields: Map<string, string>): JobRecord | undefined {
  if (!fields.has('id')) return undefined;
  const read = (name: string): Json => {
    const text = fields.get(name);
    return text === undefined ? null : (JSON.parse(text) as Json);
  };
  const job = {
    id: read('id'),
    workflow: read('workflow'),
    version: read('version'),
    model: read('model'),
    state: read('state'),
    input: read('input'),
    output: read('output'),
    error: read('error'),
    context: read('context'),
    parentId: read('parentId'),
    parentActivity: read('parentActivity'),
    createdAt: read('createdAt'),
    updatedAt: read('updatedAt'),
    finishedAt: read('finishedAt'),
  } as unknown as JobRecord;
  const traceparent = read('traceparent');
  if (typeof traceparent === 'string') {
    const tracestate = read('tracestate');
    job.trace = typeof tracestate === 'string' ? { traceparent, tracestate } : { traceparent };
  }
  return job;
}

/** Where a job's record and revision live (its partition: partitions.ts). */
async function where(tx: RedisTx, id: string) {
  const p = await tx.partitionOf(id);
  return { key: K.job(p, id), revisionKey: K.revisions(p), job: id, partition: p };
}

/** Reads a job (not held: an unlocked read, checked by nobody). */
export async function getJob(tx: RedisTx, id: string): Promise<JobRecord | undefined> {
  return toJob(await tx.hgetall((await where(tx, id)).key));
}

/** Reads jobs and holds them: their revisions are checked at commit. */
export async function lockJobs(tx: RedisTx, ids: string[]): Promise<JobRecord[]> {
  const sorted = [...new Set(ids)].sort();
  const records = await tx.lockRead(await Promise.all(sorted.map((id) => where(tx, id))));
  return records.map(toJob).filter((j): j is JobRecord => j !== undefined);
}

/** Reads one job and holds it. */
export async function lockJob(tx: RedisTx, id: string): Promise<JobRecord | undefined> {
  const [record] = await tx.lockRead([await where(tx, id)]);
  return toJob(record as Map<string, string>);
}

/** Creates a job unless one with its id exists (its revision checked either way). */
export async function createJob(
  tx: RedisTx,
  job: NewJob,
): Promise<{ job: JobRecord; created: boolean }> {
  // A child lives in its parent's partition: the step that creates it writes one slot.
  // Placed before the first await (see RedisTx.place); a child named after its parent
  // hashes there already and needs no directory entry.
  if (job.parentId) await tx.place(job.id, tx.partitionOf(job.parentId));
  const existing = await lockJob(tx, job.id);
  if (existing) return { job: existing, created: false };
  const record = newJobRecord(job, job.createdAt ?? tx.now());
  const at = await where(tx, job.id);
  tx.hset(at.key, toFields(record));
  tx.member(K.jobs(at.partition), job.id, 0);
  tx.touch(at.revisionKey, job.id);
  return { job: record, created: true };
}

/** The hash fields a patch writes, with `updatedAt`. */
function patchFields(patch: JobPatch | undefined, now: number): [string, string][] {
  const row = jobPatchRow(patch);
  const fields: [string, string][] = [['updatedAt', JSON.stringify(now)]];
  if (row.sets.output) fields.push(['output', JSON.stringify(row.output)]);
  if (row.sets.error) fields.push(['error', JSON.stringify(row.error)]);
  if (row.sets.context) fields.push(['context', JSON.stringify(row.context)]);
  return fields;
}

/** Compare-and-set of a job's state, by the rule of job-move.ts. */
export async function setJobState(
  tx: RedisTx,
  id: string,
  from: FlowState,
  to: FlowState,
  patch?: JobPatch,
): Promise<boolean> {
  const move = jobMove(id, from, to);
  if (!move) return false;
  const job = await lockJob(tx, id);
  if (!job || job.state !== from) return false;
  const now = tx.now();
  const fields = patchFields(patch, now);
  fields.push(['state', JSON.stringify(to)]);
  const row = jobPatchRow(patch);
  const finishedAt = row.sets.finishedAt ? row.finishedAt : move.final ? now : null;
  fields.push(['finishedAt', JSON.stringify(finishedAt)]);
  const at = await where(tx, id);
  tx.hset(at.key, fields);
  tx.touch(at.revisionKey, id);
  if (move.notice) tx.notify(move.notice, at.partition);
  if (move.final) await jobEnded(tx, id);
  return true;
}

/** Patches a job without moving it; NotFoundError when there is none. */
export async function updateJob(tx: RedisTx, id: string, patch: JobPatch): Promise<void> {
  const job = await lockJob(tx, id);
  if (!job) throw new NotFoundError('job', id);
  const fields = patchFields(patch, tx.now());
  const row = jobPatchRow(patch);
  if (row.sets.finishedAt) fields.push(['finishedAt', JSON.stringify(row.finishedAt)]);
  const at = await where(tx, id);
  tx.hset(at.key, fields);
  tx.touch(at.revisionKey, id);
}

/**
 * Patches several jobs, each as {@link updateJob}: every one is checked to exist (and its
 * revision taken) before anything is buffered, so a missing one patches none.
 */
export async function updateJobs(
  tx: RedisTx,
  patches: { id: string; patch: JobPatch }[],
): Promise<void> {
  const found = new Set(
    (
      await lockJobs(
        tx,
        patches.map((p) => p.id),
      )
    ).map((job) => job.id),
  );
  const missing = patches.find((p) => !found.has(p.id));
  if (missing) throw new NotFoundError('job', missing.id);
  for (const { id, patch } of patches) await updateJob(tx, id, patch);
}

/** Replaces a job's input. */
export async function setJobInput(tx: RedisTx, id: string, input: Json): Promise<void> {
  const job = await lockJob(tx, id);
  if (!job) throw new NotFoundError('job', id);
  const at = await where(tx, id);
  tx.hset(at.key, [
    ['input', JSON.stringify(input)],
    ['updatedAt', JSON.stringify(tx.now())],
  ]);
  tx.touch(at.revisionKey, id);
}

/**
 * The job ids in listing order after `after`, as this transaction sees them (its own
 * creates included). Phase 1 reads the whole index: no per-state, per-workflow or
 * paged walk yet (docs/store-redis.md, section 7).
 */
async function jobIds(tx: RedisTx, descending: boolean, after?: string): Promise<string[]> {
  const ids = new Set<string>();
  // Every partition's index (one on a single server).
  const keys = tx.partitions.all().map((p) => K.jobs(p));
  const stored = await Promise.all(keys.map((key) => tx.redis.zrangebylex(key, '-', '+')));
  for (const list of stored) for (const id of list) ids.add(id);
  for (const key of keys) {
    for (const [id, score] of tx.ownMembers(key)) if (score !== null) ids.add(id);
  }
  const sorted = [...ids].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
  if (descending) sorted.reverse();
  if (after === undefined) return sorted;
  return sorted.filter((id) => (descending ? id < after : id > after));
}

/** Whether a job passes a query's filters (paging aside). */
function matches(job: JobRecord, query: JobQuery): boolean {
  if (query.states && !query.states.includes(job.state)) return false;
  if (query.workflow !== undefined && job.workflow !== query.workflow) return false;
  if (query.parentId !== undefined && job.parentId !== query.parentId) return false;
  if (query.createdFrom !== undefined && job.createdAt < query.createdFrom) return false;
  if (query.createdBefore !== undefined && job.createdAt >= query.createdBefore) return false;
  return true;
}

/**
 * Lists jobs by filter, in id order. Phase 1 walks the index and reads each job (no
 * per-state or per-workflow index yet: docs/store-redis.md, section 7).
 */
export async function listJobs(tx: RedisTx, filter: JobFilter = {}): Promise<JobRecord[]> {
  const query = jobQuery(filter);
  if (!query || query.limit === 0) return [];
  const out: JobRecord[] = [];
  for (const id of await jobIds(tx, query.descending, query.after)) {
    const job = await getJob(tx, id);
    if (job && matches(job, query)) out.push(job);
    if (out.length >= query.limit) break;
  }
  return out;
}

/** Counts jobs by state under a filter's workflow, parent and time bounds. */
export async function countJobs(tx: RedisTx, filter: JobFilter = {}): Promise<JobCounts> {
  const query = jobQuery({ ...filter, state: undefined, after: undefined }) as JobQuery;
  const counts: JobCounts = {};
  for (const id of await jobIds(tx, false)) {
    const job = await getJob(tx, id);
    if (job && matches(job, query)) counts[job.state] = (counts[job.state] ?? 0) + 1;
  }
  return counts;
}
