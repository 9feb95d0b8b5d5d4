/**
 * Several code-first actions (a worker's batch of task results, or of task starts) planned
 * over one snapshot and written as one unit, the way the graph engine runs a batch: the
 * batch's jobs are locked in one statement and the counters its results read (their
 * semaphores) fetched in one more, issued together; the engine then runs each action
 * against {@link InstanceBatch.tx}, a view of the transaction that answers those reads from
 * memory and keeps the writes of the common path — journal entries, job heads and state
 * moves, messages, counter adds, timers, history lines — and at the end applies them with
 * `applyUnit`: one statement per table for the whole batch (one update per job row).
 *
 * The view keeps the batch's job rows as the buffered writes leave them, so a second
 * action on the same job sees the first's head and state. A counter it read is known in
 * memory, and its adds carry the value the batch expects (the unit fails when the stored
 * one differs). Any other operation (a child's start, a suspension's bookkeeping, a
 * journal read when the instance is not cached, a lock of another job) first applies what
 * is buffered, then runs on the transaction, so every statement sees what came before it.
 */
import type { FlowState } from '../core/states.js';
import { counterKeyText } from '../store/counter-key.js';
import { jobMove } from '../store/job-move.js';
import { overriding } from '../store/overriding.js';
import type {
  CounterAdd,
  CounterRef,
  JobPatch,
  JobRecord,
  JobStateMove,
  JournalEntry,
  NewHistoryEntry,
  NewMessage,
  NewTimer,
  StoreTx,
  UnitOfWork,
} from '../store/store.js';
import { applyUnit } from '../store/unit-of-work.js';

/** The batch a view belongs to, so the engine can add a counter without reading it back. */
const batches = new WeakMap<StoreTx, InstanceBatch>();

/** The batch whose view `tx` is, if it is one. */
export function batchOf(tx: StoreTx): InstanceBatch | undefined {
  return batches.get(tx);
}

/** A job's buffered row writes: at most one state move, and the fields it patches. */
interface RowWrite {
  move?: { from: FlowState; to: FlowState };
  patch: JobPatch;
}

/** A batch of actions on code-first instances, written as one unit. */
export class InstanceBatch {
  /** The transaction as the engine sees it during the batch. */
  readonly tx: StoreTx;
  /** The batch's jobs as its buffered writes leave them. */
  private readonly jobs = new Map<string, JobRecord>();
  /** Counters whose value is known (undefined: absent), by key. */
  private readonly counters = new Map<string, bigint | undefined>();
  /** Counters added without being known (their value is read from the store after a flush). */
  private readonly blind = new Set<string>();
  private journal: JournalEntry[] = [];
  private append: NewMessage[] = [];
  private adds = new Map<string, CounterAdd>();
  private cancels: string[] = [];
  private timers = new Map<string, NewTimer>();
  private rows = new Map<string, RowWrite>();
  private history: NewHistoryEntry[] = [];

  private constructor(private readonly inner: StoreTx) {
    const own: Partial<Record<keyof StoreTx, unknown>> = {
      lockJob: (id: string) => this.job(id, () => inner.lockJob(id)),
      getJob: (id: string) => this.job(id, () => inner.getJob(id)),
      getCounter: (ref: CounterRef) => this.getCounter(ref),
      addCounter: (ref: CounterRef, delta: bigint, initial?: bigint) =>
        this.addCounter(ref, delta, initial),
      appendJournal: async (entries: JournalEntry[]) => {
        this.journal.push(...entries);
      },
      // The ids are known once the unit is applied; nothing on the batch's path reads them.
      append: async (messages: NewMessage[]) => {
        this.append.push(...messages);
        return [];
      },
      scheduleTimer: async (timer: NewTimer) => {
        this.timers.set(timer.key, timer);
      },
      // Answers true: whether a timer was there is known once the unit is applied.
      cancelTimer: async (key: string) => {
        this.timers.delete(key);
        this.cancels.push(key);
        return true;
      },
      updateJob: (id: string, patch: JobPatch) => this.updateJob(id, patch),
      setJobState: (id: string, from: FlowState, to: FlowState, patch?: JobPatch) =>
        this.setJobState(id, from, to, patch),
      appendHistory: async (lines: NewHistoryEntry[]) => {
        this.history.push(...lines);
      },
    };
    // Anything else runs after what the batch has buffered.
    this.tx = overriding(inner, own, () => this.flush());
    batches.set(this.tx, this);
  }

  /**
   * Locks `jobs` (in id order, in one statement) and reads `counters`, issued together;
   * a job that does not exist is left out (its actions find no job, as alone they would).
   */
  static async open(
    tx: StoreTx,
    jobs: readonly string[],
    counters: readonly CounterRef[],
  ): Promise<InstanceBatch> {
    const batch = new InstanceBatch(tx);
    const ids = [...new Set(jobs)];
    const [locked, values] = await Promise.all([
      tx.lockJobs(ids),
      counters.length > 0 ? tx.getCounters([...counters]) : Promise.resolve([]),
    ]);
    for (const job of locked) batch.jobs.set(job.id, job);
    counters.forEach((ref, i) => {
      batch.counters.set(counterKeyText(ref), values[i]);
    });
    return batch;
  }

  /** The batch's jobs as read when locked (before any of its actions ran). */
  get locked(): readonly JobRecord[] {
    return [...this.jobs.values()];
  }

  /** A copy of a batch job as buffered (callers may keep it while the batch moves on). */
  private async job(
    id: string,
    read: () => Promise<JobRecord | undefined>,
  ): Promise<JobRecord | undefined> {
    const job = this.jobs.get(id);
    if (job) return { ...job };
    await this.flush();
    return read();
  }

  private async getCounter(ref: CounterRef): Promise<bigint | undefined> {
    const key = counterKeyText(ref);
    if (this.counters.has(key)) return this.counters.get(key);
    await this.flush();
    return this.inner.getCounter(ref);
  }

  private async addCounter(ref: CounterRef, delta: bigint, initial?: bigint): Promise<bigint> {
    const key = counterKeyText(ref);
    if (!this.counters.has(key)) {
      await this.flush();
      const value = await this.inner.addCounter(ref, delta, initial);
      this.counters.set(key, value);
      return value;
    }
    const was = this.counters.get(key);
    const value = (was ?? initial ?? 0n) + delta;
    this.counters.set(key, value);
    this.buffer(key, ref, delta, initial, value);
    return value;
  }

  /**
   * Adds to a counter whose new value the caller does not read (a work's Leg1, whose
   * counter the work's new uuid has not had): kept for the unit, not read.
   */
  addUnread(ref: CounterRef, delta: bigint, initial?: bigint): void {
    const key = counterKeyText(ref);
    if (this.counters.has(key)) {
      const value = (this.counters.get(key) ?? initial ?? 0n) + delta;
      this.counters.set(key, value);
      this.buffer(key, ref, delta, initial, value);
      return;
    }
    this.blind.add(key);
    this.buffer(key, ref, delta, initial, undefined);
  }

  /** Adds to the counter's one add in the unit (its first `initial` is the one that counts). */
  private buffer(
    key: string,
    ref: CounterRef,
    delta: bigint,
    initial: bigint | undefined,
    expect: bigint | undefined,
  ): void {
    const add = this.adds.get(key);
    if (add) add.delta += delta;
    const next = add ?? { ref, delta, ...(initial !== undefined && { initial }) };
    if (expect !== undefined) next.expect = expect;
    this.adds.set(key, next);
  }

  private async updateJob(id: string, patch: JobPatch): Promise<void> {
    const job = this.jobs.get(id);
    if (!job) {
      await this.flush();
      return this.inner.updateJob(id, patch);
    }
    const row = this.rows.get(id) ?? { patch: {} };
    row.patch = { ...row.patch, ...patch };
    this.rows.set(id, row);
    Object.assign(job, patch);
  }

  private async setJobState(
    id: string,
    from: FlowState,
    to: FlowState,
    patch: JobPatch = {},
  ): Promise<boolean> {
    const job = this.jobs.get(id);
    const row = this.rows.get(id);
    if (!job || row?.move) {
      // A second move of one job in a batch (a pause's two steps) goes as it comes.
      await this.flush();
      const moved = await this.inner.setJobState(id, from, to, patch);
      if (moved && job) this.moved(job, to, patch);
      return moved;
    }
    const move = jobMove(id, from, to);
    if (!move || job.state !== from) return false;
    this.rows.set(id, { move: { from, to }, patch: { ...row?.patch, ...patch } });
    this.moved(job, to, patch);
    return true;
  }

  /** The batch's copy of a job after a move. */
  private moved(job: JobRecord, to: FlowState, patch: JobPatch): void {
    Object.assign(job, patch);
    job.state = to;
  }

  /**
   * Locks more jobs into the batch (those it does not hold yet, in one statement) and
   * reads more counters: the starts of the tasks a batch of results scheduled, planned
   * into the results' unit.
   */
  async include(jobs: readonly string[], counters: readonly CounterRef[]): Promise<void> {
    const ids = [...new Set(jobs)].filter((id) => !this.jobs.has(id));
    const refs = counters.filter((ref) => !this.counters.has(counterKeyText(ref)));
    if (ids.length === 0 && refs.length === 0) return;
    // What is buffered goes first, so the reads see it.
    await this.flush({ keepRows: true });
    const [locked, values] = await Promise.all([
      ids.length > 0 ? this.inner.lockJobs(ids) : Promise.resolve([]),
      refs.length > 0 ? this.inner.getCounters(refs) : Promise.resolve([]),
    ]);
    for (const job of locked) this.jobs.set(job.id, job);
    refs.forEach((ref, i) => {
      this.counters.set(counterKeyText(ref), values[i]);
    });
  }

  /**
   * Applies what is buffered, as one unit, and starts a new one. With `keepRows`, the
   * journal entries and job rows stay buffered (the batch goes on, and more actions on
   * the same instances may add to them): the messages, counters, timers and history lines
   * go now, so a task the batch scheduled can be claimed, and its start planned, before
   * the rows are written once.
   */
  async flush(options: { keepRows?: boolean } = {}): Promise<void> {
    const keep = options.keepRows === true;
    const jobPatches: { id: string; patch: JobPatch }[] = [];
    const jobStates: JobStateMove[] = [];
    if (!keep) {
      for (const [id, row] of this.rows) {
        if (row.move) jobStates.push({ id, ...row.move, patch: row.patch });
        else if (Object.keys(row.patch).length > 0) jobPatches.push({ id, patch: row.patch });
      }
    }
    const unit: UnitOfWork = {
      journal: keep ? [] : this.journal,
      append: this.append,
      counters: [...this.adds.values()],
      cancelTimers: this.cancels,
      timers: [...this.timers.values()],
      jobPatches,
      jobStates,
      history: this.history,
    };
    const empty = Object.values(unit).every((list) => (list as unknown[]).length === 0);
    if (!keep) {
      this.journal = [];
      this.rows = new Map();
    }
    this.append = [];
    this.adds = new Map();
    this.cancels = [];
    this.timers = new Map();
    this.history = [];
    // Counters added blind are read from the store from now on.
    for (const key of this.blind) this.counters.delete(key);
    this.blind.clear();
    if (!empty) await applyUnit(this.inner, unit);
  }
}
