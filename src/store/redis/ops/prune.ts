/**
 * Redis `pruneJobs`, by the rules of prune-options.ts and pruned-tables.ts: the top jobs
 * (no parent, or a parent gone) that ended before `endedBefore`, in (end time, id) order
 * after the cursor, each removed with all its descendants once every one of them has
 * ended, with every key and field a job's rows live in. Each job's revision is read and
 * checked at commit, so a job written meanwhile is not removed under it.
 *
 * Everything is found through indexes: the top jobs in the end-time index
 * (`jobs:ended`), a family through the parent index, a job's threads and activities
 * through its own indexes, and the timers, waiters, dead letters and keys that name it
 * through its `owned` index (owned.ts): a prune reads what it removes, not the store.
 */
import { checkPruneOptions, prunableFamilies } from '../../prune-options.js';
import { PRUNED_TABLES } from '../../pruned-tables.js';
import type { JobRecord, NewTimer, PruneOptions, PruneResult, QueueItem } from '../../records.js';
import type { StoredWaiter } from '../../signal-delivery.js';
import { globalKeys as G, partitionKeys as K, member, SEP } from '../keys.js';
import { mergedWalks } from '../merged-walks.js';
import type { RedisTx } from '../redis-tx.js';
import { jobDimensions } from './activities.js';
import { getJob, indexJob } from './jobs.js';
import { ownedBy } from './owned.js';
import { dropMessage, jobMessages } from './streams.js';

type Cursor = { finishedAt: number; id: string };

const before = (a: Cursor, b: Cursor) =>
  a.finishedAt < b.finishedAt || (a.finishedAt === b.finishedAt && a.id < b.id);

/** How many end-time index entries one read takes. */
const PAGE = 200;

/**
 * The ended jobs in (end time, id) order from the cursor's time up to `endedBefore`
 * (exclusive), as this transaction sees one partition's end-time index, a page at a time.
 */
async function* endedIn(
  tx: RedisTx,
  key: string,
  from: number,
  until: number,
): AsyncGenerator<Cursor> {
  const own = tx.ownMembers(key);
  const added = [...own]
    .filter(([, at]) => at !== null && at >= from && at < until)
    .map(([id, at]) => ({ id, finishedAt: at as number }))
    .sort((a, b) => (before(a, b) ? -1 : 1));
  for (let offset = 0; ; offset += PAGE) {
    const page = await tx.redis.zrangebyscore(
      key,
      String(from),
      `(${until}`,
      'WITHSCORES',
      'LIMIT',
      offset,
      PAGE,
    );
    for (let i = 0; i < page.length; i += 2) {
      const next = { id: page[i] as string, finishedAt: Number(page[i + 1]) };
      while (added.length > 0 && before(added[0] as Cursor, next)) yield added.shift() as Cursor;
      if (own.has(next.id)) continue;
      yield next;
    }
    if (page.length < 2 * PAGE) break;
  }
  yield* added;
}

/** {@link endedIn} of every partition, merged in (end time, id) order. */
async function* endedJobs(tx: RedisTx, from: number, until: number): AsyncGenerator<Cursor> {
  const walks = tx.partitions.all().map((p) => endedIn(tx, K.jobsEnded(p), from, until));
  yield* mergedWalks(walks, before);
}

/** Removes finished jobs and every row they left (or, dry, counts them). */
export async function pruneJobs(tx: RedisTx, options: PruneOptions): Promise<PruneResult> {
  const o = checkPruneOptions(options);
  const tops: JobRecord[] = [];
  const from = Math.max(o.after.finishedAt, Number.MIN_SAFE_INTEGER);
  for await (const at of endedJobs(tx, from, o.endedBefore)) {
    if (tops.length >= o.limit) break;
    if (!before(o.after, at)) continue;
    const j = await getJob(tx, at.id);
    if (
      !j ||
      j.finishedAt === null ||
      j.finishedAt >= o.endedBefore ||
      !(o.states as string[]).includes(j.state) ||
      (o.workflow !== null && j.workflow !== o.workflow) ||
      o.exceptWorkflows.includes(j.workflow) ||
      (j.parentId !== null && (await getJob(tx, j.parentId)) !== undefined)
    ) {
      continue;
    }
    tops.push(j);
  }
  const last = tops.at(-1);
  const next =
    tops.length === o.limit && last
      ? { finishedAt: last.finishedAt as number, id: last.id }
      : undefined;
  const members: { root: string; id: string; state: string; finishedAt: number | null }[] = [];
  const records = new Map<string, JobRecord>();
  for (const top of tops) {
    const queue = [top];
    while (queue.length > 0) {
      const j = queue.shift() as JobRecord;
      records.set(j.id, j);
      members.push({ root: top.id, id: j.id, state: j.state, finishedAt: j.finishedAt });
      // A parent's children are in its partition (partitions.ts).
      const at = await tx.partitionOf(j.id);
      const children = await tx.zmembers(K.jobsOfParent(at, j.id));
      for (const child of await Promise.all(children.map((id) => getJob(tx, id)))) {
        if (child && child.parentId === j.id) queue.push(child);
      }
    }
  }
  const jobs = [...prunableFamilies(members, o.endedBefore).values()].flat();
  const rows = Object.fromEntries(PRUNED_TABLES.map((t) => [t.name, 0])) as Record<string, number>;
  if (jobs.length === 0) return { jobs, rows, ...(next && { next }) };
  const gone = new Set(jobs);
  const count = (name: string, n: number) => {
    rows[name] = (rows[name] ?? 0) + n;
  };
  const visited = new Set<string>();

  for (const id of jobs) {
    // The job's own partition (its timers are there too; a waiter is in its key's, a
    // dead letter in its message's).
    const P = await tx.partitionOf(id);
    await tx.lockRevision(K.revisions(P), id);
    const job = records.get(id) as JobRecord;
    const dimensions = await jobDimensions(tx, id);
    const activities = await tx.zmembers(K.activityNames(P, id));
    for (const d of dimensions) {
      const fields = await tx.hgetall(K.activities(P, id, d));
      count('activities', [...fields.keys()].filter((f) => f.endsWith(`${SEP}updatedAt`)).length);
      count('counters', (await tx.hgetall(K.counters(P, id, d))).size);
    }
    count('history', await tx.redis.llen(K.history(P, id)));
    count('journal', (await tx.hgetall(K.journal(P, id))).size);
    const messages = await jobMessages(tx, id);
    count('messages', messages.length);
    count('jobs', 1);
    const owned = await ownedBy(tx, id);
    const once = (kind: string, key: string) => {
      const entry = `${kind}${SEP}${key}`;
      if (visited.has(entry)) return false;
      visited.add(entry);
      return true;
    };
    for (const key of owned.get('timer') ?? []) {
      // A timer is in its message's job's partition: the job that noted it, this one.
      const text = await tx.hget(K.timer(P), key);
      if (!text || !once('timer', key)) continue;
      const job = (JSON.parse(text) as NewTimer).message.job;
      if (!job || !gone.has(job)) continue;
      count('timers', 1);
      if (o.dryRun) continue;
      tx.hset(K.timer(P), [[key, null]]);
      tx.member(K.timers(P), key, null);
    }
    for (const key of owned.get('waiter') ?? []) {
      const at = tx.partitions.ofKey(key);
      const text = await tx.hget(K.waiters(at), key);
      if (!text || !once('waiter', key)) continue;
      const w = JSON.parse(text) as StoredWaiter;
      if (!(w.job && gone.has(w.job)) && !(w.messageJob && gone.has(w.messageJob))) continue;
      count('waiters', 1);
      if (!o.dryRun) tx.hset(K.waiters(at), [[key, null]]);
    }
    for (const dead of owned.get('dead') ?? []) {
      const at = tx.partitions.ofMessage(dead);
      const job = await tx.hget(K.deadLetter(at, dead), 'job');
      if (!job || !gone.has(job) || !once('dead', dead)) continue;
      count('dead_letters', 1);
      if (o.dryRun) continue;
      tx.deleteKey(K.deadLetter(at, dead));
      tx.member(K.deadLetters(at), member(dead), null);
    }
    for (const [hash, kind, name] of [
      [G.idempotency, 'idem', 'idempotency'],
      [G.debounces, 'debounce', 'debounces'],
    ] as const) {
      for (const field of owned.get(kind) ?? []) {
        const text = await tx.hget(hash, field);
        if (!text || !gone.has((JSON.parse(text) as { job: string }).job)) continue;
        if (!once(kind, field)) continue;
        count(name, 1);
        if (!o.dryRun) tx.hset(hash, [[field, null]]);
      }
    }
    const item = await tx.hget(G.queueItems, id);
    if (item) {
      count('queue_items', 1);
      if (!o.dryRun) {
        tx.hset(G.queueItems, [[id, null]]);
        tx.member(G.queueJobs((JSON.parse(item) as QueueItem).queue), id, null);
      }
    }
    if (o.dryRun) continue;
    for (const m of messages) await dropMessage(tx, m.stream, m.id);
    for (const d of dimensions) {
      tx.deleteKey(K.activities(P, id, d));
      tx.deleteKey(K.counters(P, id, d));
    }
    for (const a of activities) tx.deleteKey(K.newest(P, id, a));
    for (const key of [
      K.dimensions(P, id),
      K.activityNames(P, id),
      K.owned(P, id),
      K.jobsOfParent(P, id),
      K.history(P, id),
      K.journal(P, id),
      K.job(P, id),
    ]) {
      tx.deleteKey(key);
    }
    tx.hset(K.revisions(P), [[id, null]]);
    indexJob(tx, P, job, undefined);
  }
  return { jobs, rows, ...(next && { next }) };
}
