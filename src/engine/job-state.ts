/**
 * What one chain of engine steps knows about its job and what it has decided. It reads
 * through the store transaction the engine opened with the job locked — each value once,
 * then from memory — and buffers every write as data. Nothing is written until the engine
 * takes {@link JobState.unit} and applies it in one call, so the activity kinds plan over
 * the job's state and never talk to the store.
 */
import type { ActivityRecord, ActivityWrite, CounterRef, JobRecord } from '../store/records.js';
import type { CounterAdd, StoreTx, UnitOfWork } from '../store/store.js';

function counterKey(ref: CounterRef): string {
  return `${ref.job}\u0000${ref.activity ?? ''}\u0000${ref.dimension ?? ''}\u0000${ref.field}`;
}

function activityKey(job: string, activity: string, dimension: string): string {
  return `${job}\u0000${activity}\u0000${dimension}`;
}

/** A counter as this chain sees it: the stored value plus its own adds. */
interface CounterEntry {
  value: bigint | undefined;
  add?: CounterAdd;
}

/** The read-through, write-behind state of one locked job. */
export class JobState {
  private readonly counters = new Map<string, CounterEntry>();
  private readonly records = new Map<string, ActivityRecord | undefined>();
  private listed = false;
  /** Set by {@link seed}: every counter of this job is in memory, so a miss means absent. */
  private seeded = false;
  private readonly writes = new Map<string, ActivityWrite>();
  private readonly planned: Required<
    Omit<UnitOfWork, 'ack' | 'counters' | 'activities' | 'journal'>
  > = {
    jobs: [],
    append: [],
    cancelTimers: [],
    timers: [],
    removeWaiters: [],
    waiters: [],
    jobPatches: [],
    jobStates: [],
    history: [],
  };

  constructor(
    private readonly tx: StoreTx,
    /** The locked job, as read when the lock was taken (its error and state kept current). */
    readonly job: JobRecord,
  ) {}

  /**
   * Fills the state with everything stored for the job — its counters and activity
   * records, read for a whole batch of jobs at once — so its steps read nothing more.
   */
  seed(counters: { ref: CounterRef; value: bigint }[], records: ActivityRecord[]): void {
    for (const c of counters) {
      const key = counterKey(c.ref);
      if (!this.counters.has(key)) this.counters.set(key, { value: c.value });
    }
    for (const r of records) {
      const key = activityKey(r.job, r.activity, r.dimension);
      if (!this.records.has(key)) this.records.set(key, r);
    }
    this.seeded = true;
    this.listed = true;
  }

  /** A counter's value: stored plus planned adds; undefined when it does not exist. */
  async counter(ref: CounterRef): Promise<bigint | undefined> {
    return (await this.entry(ref)).value;
  }

  /**
   * Plans an add to a counter (created at 0, or `initial` when absent, as the store does)
   * and returns the value it will have.
   */
  async addCounter(ref: CounterRef, delta: bigint, initial?: bigint): Promise<bigint> {
    const entry = await this.entry(ref);
    const value = (entry.value ?? initial ?? 0n) + delta;
    if (entry.add) entry.add.delta += delta;
    else
      entry.add = {
        ref,
        delta,
        ...(entry.value === undefined && initial !== undefined ? { initial } : {}),
      };
    entry.value = value;
    return value;
  }

  private async entry(ref: CounterRef): Promise<CounterEntry> {
    const key = counterKey(ref);
    let entry = this.counters.get(key);
    if (!entry) {
      const known = this.seeded && ref.job === this.job.id;
      entry = { value: known ? undefined : await this.tx.getCounter(ref) };
      this.counters.set(key, entry);
    }
    return entry;
  }

  /** One activity record, with this chain's writes applied. */
  async activity(activity: string, dimension = ''): Promise<ActivityRecord | undefined> {
    const key = activityKey(this.job.id, activity, dimension);
    if (!this.records.has(key) && !this.listed) {
      this.records.set(key, await this.tx.getActivity(this.job.id, activity, dimension));
    }
    return this.records.get(key);
  }

  /** Every activity record of the job, with this chain's writes applied. */
  async activities(): Promise<ActivityRecord[]> {
    if (!this.listed) {
      const stored = await this.tx.listActivities(this.job.id);
      for (const r of stored) {
        const key = activityKey(r.job, r.activity, r.dimension);
        if (!this.records.has(key)) this.records.set(key, r);
      }
      this.listed = true;
    }
    return [...this.records.values()].filter((r): r is ActivityRecord => r !== undefined);
  }

  /** Plans an activity write; absent fields keep what is stored, as the store does. */
  putActivity(write: ActivityWrite, now: number): void {
    const dimension = write.dimension ?? '';
    const key = activityKey(write.job, write.activity, dimension);
    this.writes.set(key, { ...this.writes.get(key), ...write, dimension });
    const held = this.records.get(key);
    const defined = Object.fromEntries(
      Object.entries(write).filter(([, v]) => v !== undefined),
    ) as Partial<ActivityRecord>;
    this.records.set(key, {
      job: write.job,
      activity: write.activity,
      status: 'PENDING',
      input: null,
      output: null,
      error: null,
      attempt: 0,
      startedAt: null,
      finishedAt: null,
      ...held,
      ...defined,
      dimension,
      updatedAt: now,
    } as ActivityRecord);
  }

  /** Reads another job (a child), without locking it. */
  readJob(id: string): Promise<JobRecord | undefined> {
    return this.tx.getJob(id);
  }

  /** The parts of the unit that are plain lists: push to them to plan. */
  get plan(): typeof this.planned {
    return this.planned;
  }

  /** Everything planned so far, as one unit of work; the buffers are emptied. */
  unit(): UnitOfWork {
    const counters: CounterAdd[] = [];
    for (const entry of this.counters.values()) {
      if (!entry.add) continue;
      if (entry.add.delta === 0n && entry.add.initial === undefined) {
        delete entry.add;
        continue;
      }
      counters.push({
        ...entry.add,
        ...(entry.value !== undefined ? { expect: entry.value } : {}),
      });
      delete entry.add;
    }
    const unit: UnitOfWork = { counters, activities: [...this.writes.values()] };
    this.writes.clear();
    for (const [name, list] of Object.entries(this.planned) as [
      keyof typeof this.planned,
      unknown[],
    ][]) {
      if (list.length) (unit as Record<string, unknown>)[name] = list.splice(0);
    }
    return unit;
  }
}
