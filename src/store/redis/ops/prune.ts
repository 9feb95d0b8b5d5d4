/**
 * Redis `pruneJobs`, by the rules of prune-options.ts and pruned-tables.ts: the top jobs
 * (no parent, or a parent gone) that ended before `endedBefore`, in (end time, id) order
 * after the cursor, each removed with all its descendants once every one of them has
 * ended, with every key and field a job's rows live in. Each job's revision is read and
 * checked at commit, so a job written meanwhile is not removed under it.
 *
 * Phase 1 finds the top jobs, the families and the rows of the global hashes by reading
 * them whole (no end-time index yet, docs/store-redis.md section 9).
 */
import { checkPruneOptions, prunableFamilies } from '../../prune-options.js';
import { PRUNED_TABLES } from '../../pruned-tables.js';
import type { JobRecord, NewTimer, PruneOptions, PruneResult, QueueItem } from '../../records.js';
import type { StoredWaiter } from '../../signal-delivery.js';
import { globalKeys as G, partitionKeys as K, member, SINGLE_PARTITION } from '../keys.js';
import type { RedisTx } from '../redis-tx.js';
import { listActivities } from './activities.js';
import { getJob, listJobs } from './jobs.js';
import { dropMessage, jobMessages, listDeadLetters } from './streams.js';

const P = SINGLE_PARTITION;

const before = (a: { finishedAt: number; id: string }, b: { finishedAt: number; id: string }) =>
  a.finishedAt < b.finishedAt || (a.finishedAt === b.finishedAt && a.id < b.id);

/** Removes finished jobs and every row they left (or, dry, counts them). */
export async function pruneJobs(tx: RedisTx, options: PruneOptions): Promise<PruneResult> {
  const o = checkPruneOptions(options);
  const all = await listJobs(tx, { limit: Number.MAX_SAFE_INTEGER });
  const byId = new Map(all.map((j) => [j.id, j]));
  const children = new Map<string, JobRecord[]>();
  for (const j of all) {
    if (j.parentId === null) continue;
    const list = children.get(j.parentId) ?? [];
    list.push(j);
    children.set(j.parentId, list);
  }
  const tops = all
    .filter(
      (j) =>
        j.finishedAt !== null &&
        j.finishedAt < o.endedBefore &&
        before(o.after, { finishedAt: j.finishedAt, id: j.id }) &&
        (o.states as string[]).includes(j.state) &&
        (o.workflow === null || j.workflow === o.workflow) &&
        !o.exceptWorkflows.includes(j.workflow) &&
        (j.parentId === null || !byId.has(j.parentId)),
    )
    .map((j) => ({ id: j.id, finishedAt: j.finishedAt as number }))
    .sort((a, b) => (before(a, b) ? -1 : before(b, a) ? 1 : 0))
    .slice(0, o.limit);
  const last = tops.at(-1);
  const next = tops.length === o.limit && last ? { ...last } : undefined;
  const members: { root: string; id: string; state: string; finishedAt: number | null }[] = [];
  for (const top of tops) {
    const queue = [byId.get(top.id) as JobRecord];
    while (queue.length > 0) {
      const j = queue.shift() as JobRecord;
      members.push({ root: top.id, id: j.id, state: j.state, finishedAt: j.finishedAt });
      queue.push(...(children.get(j.id) ?? []));
    }
  }
  const jobs = [...prunableFamilies(members, o.endedBefore).values()].flat();
  const rows = Object.fromEntries(PRUNED_TABLES.map((t) => [t.name, 0])) as Record<string, number>;
  if (jobs.length === 0) return { jobs, rows, ...(next && { next }) };
  const gone = new Set(jobs);
  const count = (name: string, n: number) => {
    rows[name] = (rows[name] ?? 0) + n;
  };

  for (const id of jobs) {
    // The job's own partition (the timers and waiters below are in partition 0).
    const P = await tx.partitionOf(id);
    await tx.lockRevision(K.revisions(P), id);
    count('activities', (await listActivities(tx, id)).length);
    count('counters', (await tx.hgetall(K.counters(P, id))).size);
    count('history', await tx.redis.llen(K.history(P, id)));
    count('journal', (await tx.hgetall(K.journal(P, id))).size);
    const messages = await jobMessages(tx, id);
    count('messages', messages.length);
    if ((await getJob(tx, id)) !== undefined) count('jobs', 1);
    if (o.dryRun) continue;
    for (const m of messages) await dropMessage(tx, m.stream, m.id);
    for (const key of [
      K.activities(P, id),
      K.counters(P, id),
      K.history(P, id),
      K.journal(P, id),
      K.job(P, id),
    ]) {
      tx.deleteKey(key);
    }
    tx.hset(K.revisions(P), [[id, null]]);
    tx.member(K.jobs(P), id, null);
  }

  for (const dead of await listDeadLetters(tx, undefined, Number.MAX_SAFE_INTEGER)) {
    if (dead.job === null || !gone.has(dead.job)) continue;
    count('dead_letters', 1);
    if (o.dryRun) continue;
    const at = tx.partitions.ofMessage(dead.id);
    tx.deleteKey(K.deadLetter(at, dead.id));
    tx.member(K.deadLetters(at), member(dead.id), null);
  }
  for (const [key, text] of await tx.hgetall(K.timer(P))) {
    const job = (JSON.parse(text) as NewTimer).message.job;
    if (!job || !gone.has(job)) continue;
    count('timers', 1);
    if (o.dryRun) continue;
    tx.hset(K.timer(P), [[key, null]]);
    tx.member(K.timers(P), key, null);
  }
  for (const [key, text] of await tx.hgetall(K.waiters(P))) {
    const w = JSON.parse(text) as StoredWaiter;
    if (!(w.job && gone.has(w.job)) && !(w.messageJob && gone.has(w.messageJob))) continue;
    count('waiters', 1);
    if (!o.dryRun) tx.hset(K.waiters(P), [[key, null]]);
  }
  for (const [job, text] of await tx.hgetall(G.queueItems)) {
    if (!gone.has(job)) continue;
    count('queue_items', 1);
    if (o.dryRun) continue;
    tx.hset(G.queueItems, [[job, null]]);
    tx.member(G.queueJobs((JSON.parse(text) as QueueItem).queue), job, null);
  }
  for (const [hash, name] of [
    [G.idempotency, 'idempotency'],
    [G.debounces, 'debounces'],
  ] as const) {
    for (const [field, text] of await tx.hgetall(hash)) {
      if (!gone.has((JSON.parse(text) as { job: string }).job)) continue;
      count(name, 1);
      if (!o.dryRun) tx.hset(hash, [[field, null]]);
    }
  }
  return { jobs, rows, ...(next && { next }) };
}
