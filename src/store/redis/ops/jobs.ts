/**
 * Redis job operations: a job is a hash (`weft:{p}:job:<id>`, one field per column, each
 * holding its value as JSON text) and a member of its partition's job indexes — every
 * job, by state, by workflow, by parent, and (once ended) by end time — which the same
 * commit keeps. Creates, moves and patches read the job's revision first, so two
 * transactions that decide on the same job cannot both commit (docs/store-redis.md,
 * section 1). A listing walks the narrowest index that applies and checks each job it
 * reads against the whole filter, so an index is only ever a narrowing.
 */
import { NotFoundError } from '../../../core/errors.js';
import { FLOW_STATES, type FlowState } from '../../../core/states.js';
import { jobMove } from '../../job-move.js';
import { type JobQuery, jobQuery } from '../../job-query.js';
import { jobPatchRow, newJobRecord } from '../../job-record.js';
import type { JobCounts, JobFilter, JobPatch, JobRecord, Json, NewJob } from '../../records.js';
import { partitionKeys as K } from '../keys.js';
import { mergedWalks } from '../merged-walks.js';
import { byBytes, type RedisTx } from '../redis-tx.js';
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

/** What a job's index memberships depend on. */
type Indexed = Pick<JobRecord, 'id' | 'state' | 'workflow' | 'parentId' | 'finishedAt'>;

/**
 * Moves a job's index memberships from what it was (`before`, undefined for a new job,
 * or for one removed when `after` is undefined) to what it is. The indexes are those of
 * the job's partition `p`, so the commit that writes the job writes them in its slot.
 */
export function indexJob(
  tx: RedisTx,
  p: number,
  before: Indexed | undefined,
  after: Indexed | undefined,
) {
  const job = (after ?? before) as Indexed;
  if (!before && after) {
    tx.member(K.jobs(p), job.id, 0);
    tx.member(K.jobsOfWorkflow(p, job.workflow), job.id, 0);
    if (job.parentId !== null) tx.member(K.jobsOfParent(p, job.parentId), job.id, 0);
  }
  if (before && !after) {
    tx.member(K.jobs(p), job.id, null);
    tx.member(K.jobsOfWorkflow(p, job.workflow), job.id, null);
    if (job.parentId !== null) tx.member(K.jobsOfParent(p, job.parentId), job.id, null);
  }
  if (before && before.state !== after?.state)
    tx.member(K.jobsInState(p, before.state), job.id, null);
  if (after && before?.state !== after.state) tx.member(K.jobsInState(p, after.state), job.id, 0);
  if (after?.finishedAt != null) tx.member(K.jobsEnded(p), job.id, after.finishedAt);
  else if (before?.finishedAt != null) tx.member(K.jobsEnded(p), job.id, null);
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
  indexJob(tx, at.partition, undefined, record);
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
  indexJob(tx, at.partition, job, { ...job, state: to, finishedAt });
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
  if (row.sets.finishedAt) {
    indexJob(tx, at.partition, job, { ...job, finishedAt: row.finishedAt });
  }
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

/** How many ids one read of an index takes, and how many jobs are read at once. */
const PAGE = 200;

/**
 * The members of a job index (score 0) in listing order after `after`, as this
 * transaction sees them (its own adds merged in, its removals left out), a page at a time.
 */
async function* walk(
  tx: RedisTx,
  key: string,
  descending: boolean,
  after?: string,
): AsyncGenerator<string> {
  const own = tx.ownMembers(key);
  const beyond = (id: string) => after === undefined || (descending ? id < after : id > after);
  const added = [...own]
    .filter(([id, score]) => score !== null && beyond(id))
    .map(([id]) => id)
    .sort(byBytes);
  if (descending) added.reverse();
  const first = (x: string, y: string) => (descending ? x > y : x < y);
  let bound = after === undefined ? (descending ? '+' : '-') : `(${after}`;
  for (;;) {
    const page = descending
      ? await tx.redis.zrevrangebylex(key, bound, '-', 'LIMIT', 0, PAGE)
      : await tx.redis.zrangebylex(key, bound, '+', 'LIMIT', 0, PAGE);
    for (const id of page) {
      while (added.length > 0 && first(added[0] as string, id)) yield added.shift() as string;
      if (added[0] === id) added.shift();
      if (own.get(id) === null) continue;
      yield id;
    }
    if (page.length < PAGE) break;
    bound = `(${page.at(-1)}`;
  }
  yield* added;
}

/**
 * The ids a query may match, in listing order, from the narrowest index that applies.
 * A job's indexes are in its partition: a parent's children are all in the parent's
 * (partitions.ts), the other indexes are walked in every partition and merged.
 */
async function* candidates(tx: RedisTx, query: Omit<JobQuery, 'limit'>): AsyncGenerator<string> {
  const { descending, after } = query;
  if (query.parentId !== undefined) {
    const p = await tx.partitionOf(query.parentId);
    yield* walk(tx, K.jobsOfParent(p, query.parentId), descending, after);
    return;
  }
  let keys: (p: number) => string[];
  if (query.workflow !== undefined) {
    const workflow = query.workflow;
    keys = (p) => [K.jobsOfWorkflow(p, workflow)];
  } else if (query.states) {
    const states = [...new Set(query.states)];
    keys = (p) => states.map((state) => K.jobsInState(p, state));
  } else {
    keys = (p) => [K.jobs(p)];
  }
  const walks = tx.partitions
    .all()
    .flatMap(keys)
    .map((key) => walk(tx, key, descending, after));
  yield* walks.length === 1
    ? (walks[0] as AsyncGenerator<string>)
    : mergedWalks(walks, descending ? (a, b) => a > b : (a, b) => a < b);
}

/** The jobs a query matches, in listing order, read a page at a time. */
async function* matching(tx: RedisTx, query: Omit<JobQuery, 'limit'>): AsyncGenerator<JobRecord> {
  let ids: string[] = [];
  const flush = async function* () {
    const jobs = await Promise.all(ids.map((id) => getJob(tx, id)));
    ids = [];
    for (const job of jobs) if (job && matches(job, query)) yield job;
  };
  for await (const id of candidates(tx, query)) {
    ids.push(id);
    if (ids.length >= PAGE) yield* flush();
  }
  yield* flush();
}

/** Whether a job passes a query's filters (paging aside). */
function matches(job: JobRecord, query: Omit<JobQuery, 'limit'>): boolean {
  if (query.states && !query.states.includes(job.state)) return false;
  if (query.workflow !== undefined && job.workflow !== query.workflow) return false;
  if (query.parentId !== undefined && job.parentId !== query.parentId) return false;
  if (query.createdFrom !== undefined && job.createdAt < query.createdFrom) return false;
  if (query.createdBefore !== undefined && job.createdAt >= query.createdBefore) return false;
  return true;
}

/** Lists jobs by filter, in id order, walking the narrowest index that applies. */
export async function listJobs(tx: RedisTx, filter: JobFilter = {}): Promise<JobRecord[]> {
  const query = jobQuery(filter);
  if (!query || query.limit === 0) return [];
  const out: JobRecord[] = [];
  for await (const job of matching(tx, query)) {
    out.push(job);
    if (out.length >= query.limit) break;
  }
  return out;
}

/**
 * Each state's job count: `ZCARD` of the state indexes of every partition, corrected by
 * this transaction's own moves.
 */
async function countByState(tx: RedisTx): Promise<JobCounts> {
  const counts: JobCounts = {};
  const keys = tx.partitions
    .all()
    .flatMap((p) => FLOW_STATES.map((state) => ({ state, key: K.jobsInState(p, state) })));
  await Promise.all(
    keys.map(async ({ state, key }) => {
      let n = await tx.redis.zcard(key);
      const own = [...tx.ownMembers(key)];
      if (own.length > 0) {
        const stored = await tx.redis.zmscore(key, ...own.map(([id]) => id));
        own.forEach(([, score], i) => {
          const there = stored[i] !== null;
          if (score === null && there) n--;
          if (score !== null && !there) n++;
        });
      }
      if (n > 0) counts[state] = (counts[state] ?? 0) + n;
    }),
  );
  return counts;
}

/** Counts jobs by state under a filter's workflow, parent and time bounds. */
export async function countJobs(tx: RedisTx, filter: JobFilter = {}): Promise<JobCounts> {
  const query = jobQuery({ ...filter, state: undefined, after: undefined }) as JobQuery;
  const narrowed =
    query.workflow !== undefined ||
    query.parentId !== undefined ||
    query.createdFrom !== undefined ||
    query.createdBefore !== undefined;
  if (!narrowed) return countByState(tx);
  const counts: JobCounts = {};
  for await (const job of matching(tx, query)) counts[job.state] = (counts[job.state] ?? 0) + 1;
  return counts;
}
