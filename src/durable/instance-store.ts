/**
 * Where a code-first instance lives in the store: its head in the job's `context` and its
 * items in the job's journal (see `instance-journal.ts`). The one way to read an instance
 * ({@link loadInstance}) and the one way to plan writing one ({@link planInstanceWrites});
 * nothing outside this folder reads a code-first job's `context` itself.
 *
 * Reading a long instance means reading its whole journal, so a runtime keeps the
 * instances it wrote last in an {@link InstanceCache}: a cached instance is used only while
 * its `rev` is the one in the stored head (read under the job's lock), so a write this
 * process rolled back, or one another process made, is never mistaken for the current one.
 */
import { randomBytes } from 'node:crypto';
import type { JobPatch, JobRecord, JournalEntry, Json } from '../store/records.js';
import type { StoreTx } from '../store/store.js';
import type { Instance } from './instance.js';
import {
  foldJournal,
  headOf,
  type InstanceHead,
  isInstanceHead,
  journalChanges,
} from './instance-journal.js';

/** An instance as read, with where its journal stands (what a write plans from). */
export interface LoadedInstance {
  instance: Instance;
  /** Entries in the journal. */
  journal: number;
  rev: string;
}

/** A write of an instance: the entries to append and the job's new `context`. */
export interface InstanceWrites {
  journal: JournalEntry[];
  patch: Required<Pick<JobPatch, 'context'>>;
  /** The instance as it will then be stored (to cache, or to plan the next write from). */
  loaded: LoadedInstance;
}

/** The instances a runtime wrote last, by job, each with the rev it was written under. */
export class InstanceCache {
  private readonly items = new Map<string, LoadedInstance>();

  constructor(private readonly capacity = 256) {}

  /** The cached instance of `job` when it is the one stored under `rev`. */
  get(job: string, rev: string): LoadedInstance | undefined {
    const item = this.items.get(job);
    if (item?.rev !== rev) return undefined;
    // Most recently used last.
    this.items.delete(job);
    this.items.set(job, item);
    return item;
  }

  /** Remembers the instance of `job` as written (or read). */
  put(job: string, loaded: LoadedInstance): void {
    this.items.delete(job);
    this.items.set(job, loaded);
    if (this.items.size > this.capacity) {
      const oldest = this.items.keys().next().value as string;
      this.items.delete(oldest);
    }
  }
}

const REV_PREFIX = randomBytes(6).toString('base64url');
let revCount = 0;

/** A rev no other write, here or in another process, has used. */
function newRev(): string {
  revCount += 1;
  return `${REV_PREFIX}${revCount.toString(36)}`;
}

/**
 * The instance of a code-first job, or null when `job` is not one (a graph job, or a
 * context that is not an instance head). Reads the job's journal unless `cache` holds
 * the instance under the stored rev.
 */
export async function loadInstance(
  tx: Pick<StoreTx, 'readJournal'>,
  job: JobRecord,
  cache?: InstanceCache,
): Promise<LoadedInstance | null> {
  if (job.model !== 'durable' || !isInstanceHead(job.context)) return null;
  const head = job.context as unknown as InstanceHead;
  const cached = cache?.get(job.id, head.rev);
  if (cached) return cached;
  const entries = await tx.readJournal(job.id);
  const instance = foldJournal(
    head,
    entries.map((e) => ({ kind: e.kind as never, key: e.key, data: e.data })),
  );
  const loaded = { instance, journal: head.journal, rev: head.rev };
  cache?.put(job.id, loaded);
  return loaded;
}

/**
 * Puts the instances of `jobs` that `cache` does not hold under their stored rev into it,
 * their journals read in one statement (a batch's instances, before its actions run).
 */
export async function primeInstances(
  tx: Pick<StoreTx, 'journalsOfJobs'>,
  jobs: readonly JobRecord[],
  cache: InstanceCache,
): Promise<void> {
  const missing = jobs.filter(
    (job) =>
      job.model === 'durable' &&
      isInstanceHead(job.context) &&
      !cache.get(job.id, (job.context as unknown as InstanceHead).rev),
  );
  if (missing.length === 0) return;
  const entries = await tx.journalsOfJobs(missing.map((job) => job.id));
  const byJob = new Map<string, JournalEntry[]>();
  for (const entry of entries) {
    const list = byJob.get(entry.job);
    if (list) list.push(entry);
    else byJob.set(entry.job, [entry]);
  }
  for (const job of missing) {
    const head = job.context as unknown as InstanceHead;
    const instance = foldJournal(
      head,
      (byJob.get(job.id) ?? []).map((e) => ({ kind: e.kind as never, key: e.key, data: e.data })),
    );
    cache.put(job.id, { instance, journal: head.journal, rev: head.rev });
  }
}

/**
 * What storing `next` writes, given the instance as it was loaded (`null` for a new one):
 * the journal entries for what it added, replaced or removed, numbered after the stored
 * ones, and the new head for the job's `context`.
 */
export function planInstanceWrites(
  jobId: string,
  loaded: LoadedInstance | null,
  next: Instance,
): InstanceWrites {
  const changes = journalChanges(loaded?.instance ?? null, next);
  const from = loaded?.journal ?? 0;
  const journal = changes.map((c, i) => ({ job: jobId, seq: from + i + 1, ...c }));
  const rev = newRev();
  const count = from + journal.length;
  return {
    journal,
    patch: { context: headOf(next, count, rev) as unknown as Json },
    loaded: { instance: next, journal: count, rev },
  };
}
