/**
 * What one chain of engine steps knows about its job and what it has decided. It reads
 * through the store transaction the engine opened with the job locked — each value once,
 * then from memory — and buffers every write as data. Nothing is written until the engine
 * takes {@link JobState.unit} and applies it in one call, so the activity kinds plan over
 * the job's state and never talk to the store.
 */
import { InvalidStateError } from '../core/errors.js';
import { activityMove, isActivityState } from '../core/states.js';
import { counterKeyText } from '../store/counter-key.js';
import type { ActivityRecord, ActivityWrite, CounterRef, JobRecord } from '../store/records.js';
import type { CounterAdd, StoreTx, UnitOfWork } from '../store/store.js';

function activityKey(job: string, activity: string, dimension: string): string {
  return `${job}\u0000${activity}\u0000${dimension}`;
}

/** An activity that ran and emitted nothing on one of its outputs (crossflow's disposal). */
export interface Disposal {
  activity: string;
  dimension: string;
  /** What it did not emit, in words: `transition a -> b not taken`, `collect under min`… */
  what: string;
}

/** The thread number of a record (`…#n`; 0 outside a numbered thread). */
function threadNumber(r: ActivityRecord): number {
  return Number(/#(\d+)$/.exec(r.dimension)?.[1] ?? 0);
}

/** True when `r` is newer than `held`: a later `updatedAt`, or the same and a higher thread number. */
export function newerRecord(r: ActivityRecord, held: ActivityRecord | undefined): boolean {
  return (
    !held ||
    r.updatedAt > held.updatedAt ||
    (r.updatedAt === held.updatedAt && threadNumber(r) > threadNumber(held))
  );
}

/**
 * One record per activity out of the store's newest ones: a spread writes one record per
 * thread in one step, so thousands can tie for newest. Ties go to the highest thread
 * number (`…#n`), as expressions rank them; a step's own thread is read separately.
 */
function newestOfEach(records: ActivityRecord[]): ActivityRecord[] {
  const best = new Map<string, ActivityRecord>();
  for (const r of records) if (newerRecord(r, best.get(r.activity))) best.set(r.activity, r);
  return [...best.values()];
}

/** Where an activity's newest record is: among those in memory, and among those stored. */
export interface NewestRecords {
  /** The newest of this chain's records and of those it read (its writes applied). */
  held: ActivityRecord | undefined;
  /**
   * The newest stored record (ties to the highest thread number), in the version this
   * chain holds when it has read it again or written it since.
   */
  stored: ActivityRecord | undefined;
}

/** How an activity write's state move is checked. */
export interface ActivityMoveOptions {
  /** The machine of the record: `task` (default) or `retry` (a retry controller's). */
  machine?: 'task' | 'retry';
  /** TaskFlow's reset(): the record may go back to PENDING from any state. */
  reset?: boolean;
  /**
   * The caller checked the move on `machine` itself (a retry controller, which reads its
   * running scope's record as the machine's SUCCESS: scope-retry.ts); only the state's
   * membership is checked here.
   */
  checked?: boolean;
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
  /**
   * The dimensional threads whose counters and records are all in memory (by
   * {@link seed} or {@link loadDimension}): a miss in one of them means absent.
   */
  private readonly seeded = new Set<string>();
  /** Each activity's newest stored record(s), read once when expressions need them. */
  private newest: ActivityRecord[] | undefined;
  /** One activity's newest stored record, read once per activity an expression names. */
  private readonly storedNewest = new Map<string, ActivityRecord | undefined>();
  /** Each activity's newest record in memory, kept as records are read and written. */
  private readonly heldNewest = new Map<string, ActivityRecord>();
  private readonly writes = new Map<string, ActivityWrite>();
  /** Scopes a member's move asked to check once the chain is done, with its thread. */
  readonly scopeChecks: { scope: string; dimension: string }[] = [];
  /** Collects whose reachability to check once the chain is done, with their thread. */
  readonly collectChecks: { collect: string; dimension: string }[] = [];
  /** Disposals of this chain (an output that carried nothing), oldest first. */
  readonly disposals: Disposal[] = [];
  private readonly planned: Required<
    Omit<UnitOfWork, 'ack' | 'counters' | 'activities' | 'journal'>
  > = {
    jobs: [],
    append: [],
    enqueue: [],
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
   * Fills the state with what is stored for the job in the dimensional threads
   * `dimensions` — its counters and activity records there, read for a whole batch of
   * jobs at once — so steps in those threads read nothing more. A job's other threads
   * (a long cycle leaves one per iteration) are read only if a step reaches them.
   */
  seed(
    counters: { ref: CounterRef; value: bigint }[],
    records: ActivityRecord[],
    dimensions: Iterable<string>,
  ): void {
    for (const c of counters) {
      const key = counterKeyText(c.ref);
      if (!this.counters.has(key)) this.counters.set(key, { value: c.value });
    }
    for (const r of records) {
      const key = activityKey(r.job, r.activity, r.dimension);
      if (!this.records.has(key)) this.hold(key, r);
    }
    for (const d of dimensions) this.seeded.add(d);
  }

  /** Keeps a record in memory, and notes it when it is its activity's newest there. */
  private hold(key: string, record: ActivityRecord | undefined): void {
    this.records.set(key, record);
    if (!record) return;
    const best = this.heldNewest.get(record.activity);
    // A newer version of the newest record replaces it whatever the ranks say.
    if (newerRecord(record, best) || best?.dimension === record.dimension) {
      this.heldNewest.set(record.activity, record);
    }
  }

  /** Reads a dimensional thread's counters and records, once, so a step there reads no more. */
  async loadDimension(dimension: string): Promise<void> {
    if (this.seeded.has(dimension)) return;
    const [counters, records] = [
      await this.tx.countersOfJobs([this.job.id], [dimension]),
      await this.tx.activitiesOfJobs([this.job.id], [dimension]),
    ];
    this.seed(counters, records, [dimension]);
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
    const key = counterKeyText(ref);
    let entry = this.counters.get(key);
    if (!entry) {
      const known = ref.job === this.job.id && this.seeded.has(ref.dimension ?? '');
      entry = { value: known ? undefined : await this.tx.getCounter(ref) };
      this.counters.set(key, entry);
    }
    return entry;
  }

  /** One activity record, with this chain's writes applied. */
  async activity(activity: string, dimension = ''): Promise<ActivityRecord | undefined> {
    const key = activityKey(this.job.id, activity, dimension);
    if (!this.records.has(key) && !this.seeded.has(dimension)) {
      this.hold(key, await this.tx.getActivity(this.job.id, activity, dimension));
    }
    return this.records.get(key);
  }

  /** An activity's record in a thread if it is in memory (read or written), else undefined. */
  held(activity: string, dimension: string): ActivityRecord | undefined {
    return this.records.get(activityKey(this.job.id, activity, dimension));
  }

  /**
   * An activity's newest record in memory and its newest stored one (read once per
   * activity, by the (job, activity, updated_at) index): what an expression naming it
   * reads when its own thread has no record, without reading every thread's.
   */
  async newestOf(activity: string): Promise<NewestRecords> {
    if (!this.storedNewest.has(activity)) {
      const stored = this.newest
        ? this.newest.find((r) => r.activity === activity)
        : newestOfEach(await this.tx.newestActivities(this.job.id, [activity]))[0];
      this.storedNewest.set(activity, stored);
    }
    // That record as this chain has it now: a version it read again or wrote since is the
    // current one, even when both carry the same `updatedAt` (two steps in one
    // millisecond), where comparing them would keep the stale stored version.
    const stored = this.storedNewest.get(activity);
    const current = stored
      ? (this.records.get(activityKey(stored.job, stored.activity, stored.dimension)) ?? stored)
      : undefined;
    return { held: this.heldNewest.get(activity), stored: current };
  }

  /**
   * One activity's records in many threads (a collect's held items), read in a few
   * set-based queries, with this chain's writes applied.
   */
  async activityIn(activity: string, dimensions: readonly string[]): Promise<ActivityRecord[]> {
    const missing = dimensions.filter(
      (d) => !this.seeded.has(d) && !this.records.has(activityKey(this.job.id, activity, d)),
    );
    for (let i = 0; i < missing.length; i += 500) {
      const chunk = missing.slice(i, i + 500);
      this.seed([], await this.tx.activitiesOfJobs([this.job.id], chunk), chunk);
    }
    const out: ActivityRecord[] = [];
    for (const d of dimensions) {
      const record = this.records.get(activityKey(this.job.id, activity, d));
      if (record) out.push(record);
    }
    return out;
  }

  /**
   * The records expressions choose from, with this chain's writes applied: every record
   * of the threads in memory, plus each activity's newest stored record (read once).
   * For every activity it holds its record in any loaded thread and its newest one
   * overall, so "this thread's record, else the newest" reads the same as over all of
   * the job's records.
   */
  async candidates(): Promise<ActivityRecord[]> {
    if (!this.newest) this.newest = newestOfEach(await this.tx.newestActivities(this.job.id));
    const out = new Map<string, ActivityRecord>();
    for (const r of this.newest) out.set(activityKey(r.job, r.activity, r.dimension), r);
    for (const [key, r] of this.records) if (r) out.set(key, r);
    return [...out.values()];
  }

  /**
   * Every activity record of the job in every thread, with this chain's writes applied
   * (read from the store on each call: only a job that reverts needs it, once per revert).
   */
  async allActivities(): Promise<ActivityRecord[]> {
    const out = new Map<string, ActivityRecord>();
    for (const r of await this.tx.activitiesOfJobs([this.job.id])) {
      out.set(activityKey(r.job, r.activity, r.dimension), r);
    }
    for (const [key, r] of this.records) if (r) out.set(key, r);
    return [...out.values()];
  }

  /**
   * Every activity-level counter named `field` of the job in every thread, with this
   * chain's adds applied, by `<activity>\u0000<dimension>`.
   */
  async countersNamed(field: string): Promise<Map<string, bigint>> {
    const out = new Map<string, bigint>();
    const key = (ref: CounterRef) => `${ref.activity ?? ''}\u0000${ref.dimension ?? ''}`;
    for (const c of await this.tx.countersOfJobs([this.job.id])) {
      if (c.ref.field === field && c.ref.activity) out.set(key(c.ref), c.value);
    }
    for (const [k, entry] of this.counters) {
      const [job, activity, dimension = '', name] = k.split('\u0000');
      if (job !== this.job.id || name !== field || !activity || entry.value === undefined) continue;
      out.set(`${activity}\u0000${dimension}`, entry.value);
    }
    return out;
  }

  /**
   * Plans an activity write; absent fields keep what is stored, as the store does. A
   * write that changes the record's state is checked against the task machine (`retry`
   * for a retry controller's record) from the state the record is in now — PENDING when
   * there is none — and throws `InvalidStateError` on an illegal move, which fails the
   * step and rolls it back. `reset` is TaskFlow's reset() to PENDING.
   */
  putActivity(write: ActivityWrite, now: number, options: ActivityMoveOptions = {}): void {
    const dimension = write.dimension ?? '';
    const key = activityKey(write.job, write.activity, dimension);
    if (write.status !== undefined) this.checkMove(key, write, dimension, options);
    this.writes.set(key, { ...this.writes.get(key), ...write, dimension });
    const held = this.records.get(key);
    const defined = Object.fromEntries(
      Object.entries(write).filter(([, v]) => v !== undefined),
    ) as Partial<ActivityRecord>;
    this.hold(key, {
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

  private checkMove(
    key: string,
    write: ActivityWrite,
    dimension: string,
    options: ActivityMoveOptions,
  ): void {
    const to = write.status as string;
    const subject = `${write.activity}${dimension ? `/${dimension}` : ''} of job ${write.job}`;
    const known = this.records.has(key) || this.seeded.has(dimension);
    if (!known || options.checked) {
      // A thread this chain never read: the store's own check (a known state) is all.
      if (!isActivityState(to)) throw new InvalidStateError(`task ${subject}`, '?', to);
      return;
    }
    const from = this.records.get(key)?.status ?? 'PENDING';
    if (!isActivityState(to)) throw new InvalidStateError(`task ${subject}`, from, to);
    activityMove(options.machine ?? 'task', from, to, subject, options);
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
