/**
 * One engine step: what the engine does for one message, as a plan over its job's state.
 * The engine locks the job and hands the step a {@link JobState}; activity kinds read the
 * collation key, semaphores, counters and activity records through the step and plan
 * their writes on it — collation moves checked against the current key, messages, timers,
 * waiters, child jobs — and never touch the store. When the chain of steps of one
 * message ends, the engine takes the whole plan as one unit of work and applies it in one
 * call (chain of custody: the children's messages commit with the ack).
 */
import type { Clock } from '../core/clock.js';
import { checkedDeltaTo, digitDelta, digitOf } from '../core/collation.js';
import { type CollationDigit, isActiveDigit } from '../core/collation-digits.js';
import { ValidationError } from '../core/errors.js';
import type { RandomSource } from '../core/retry-policy.js';
import type { FlowState } from '../core/states.js';
import { expressionReads } from '../graph/expression-reads.js';
import { scopeChain } from '../graph/scopes.js';
import { queuedLine } from '../store/queue-placement.js';
import type {
  ActivityRecord,
  ActivityWrite,
  CounterRef,
  ErrorRecord,
  JobPatch,
  JobRecord,
  Json,
  NewHistoryEntry,
  NewJob,
  NewMessage,
  NewQueueItem,
  NewTimer,
  NewWaiter,
} from '../store/records.js';
import type { UnitOfWork } from '../store/store.js';
import { COLLATION_FIELD } from './collation-field.js';
import { planExpression } from './expression-plan.js';
import { type GraphHistoryKind, type OwnWrite, stateEntry, stepEntry } from './history.js';
import {
  type ActivityMoveOptions,
  type Disposal,
  type JobState,
  newerRecord,
} from './job-state.js';
import type { CompiledActivity } from './kinds/index.js';
import type { LoadedWorkflow } from './loaded-workflow.js';
import { ENGINE_STREAM, type EngineMessage } from './messages.js';
import { threadOf } from './threads.js';

function compareRanks(a: number[], b: number[]): number {
  for (let i = 0; i < a.length; i++) {
    const d = (a[i] as number) - (b[i] as number);
    if (d !== 0) return d;
  }
  return 0;
}

/** Loads a deployed workflow's newest version (for activities that start child jobs). */
export type WorkflowLoader = (workflow: string) => Promise<LoadedWorkflow>;

/** The per-step context shared by every activity kind. */
export class Step {
  private readonly held: EngineMessage[] = [];
  private hold: ((message: EngineMessage) => boolean) | undefined;
  private expressionData: Record<string, Json> | undefined;
  /** The activities whose entry in {@link expressionData} was looked up (or remembered). */
  private readonly looked = new Set<string>();
  /** Every activity's entry is in {@link expressionData}. */
  private complete = false;
  /** The digits this step moved, by activity: [before its first move, after its last]. */
  private readonly moves: Record<string, [CollationDigit, CollationDigit]> = {};
  /** What this step wrote on activity records, by activity and dimension (for its history line). */
  private readonly writes = new Map<string, OwnWrite>();
  /** The state this step moved the job to, if it did. */
  private jobMove: FlowState | undefined;

  constructor(
    private readonly state: JobState,
    readonly wf: LoadedWorkflow,
    readonly clock: Clock,
    /** The dimensional thread of the message this step runs; expressions see it first. */
    readonly dimension: string,
    /** Loads other workflows, for child jobs. */
    readonly loadWorkflow: WorkflowLoader,
    /** Random numbers in [0, 1): the jitter of retry delays. */
    readonly random: RandomSource = Math.random,
  ) {}

  /** The job, as locked for this step. */
  get job(): JobRecord {
    return this.state.job;
  }

  /** The activity definition, by id. */
  activity(id: string): CompiledActivity {
    const activity = this.wf.compiled.activities[id];
    if (!activity) {
      throw new ValidationError(
        `unknown activity ${JSON.stringify(id)} in ${this.job.workflow}@${this.job.version}`,
        `job ${this.job.id}`,
      );
    }
    return activity;
  }

  // ── the collation key and counters ─────────────────────────────────────

  /** The collation key as this step sees it (stored value plus the moves planned so far). */
  async collation(): Promise<bigint> {
    return (await this.state.counter({ job: this.job.id, field: COLLATION_FIELD })) ?? 0n;
  }

  /** The current digit of an activity. */
  async digit(activity: string): Promise<CollationDigit> {
    return digitOf(this.wf.layout, await this.collation(), activity);
  }

  /**
   * Moves an activity's digit, checked: a move not allowed from its current digit throws
   * InvalidStateError. Every move of a chain folds into one add of the key.
   */
  async move(activity: string, to: CollationDigit): Promise<void> {
    // An activity that runs in many threads moves for all of them at once.
    const opener = this.wf.threadSource.get(activity);
    const at = opener === undefined ? undefined : threadOf(this.dimension, opener);
    if (at) {
      await this.passThread(activity, to, at.parent);
      return;
    }
    const key = await this.collation();
    const delta = checkedDeltaTo(this.wf.layout, key, activity, to);
    await this.state.addCounter({ job: this.job.id, field: COLLATION_FIELD }, delta);
    const from = digitOf(this.wf.layout, key, activity);
    const before = this.moves[activity]?.[0] ?? from;
    this.moves[activity] = [before, to];
    // A member leaving the active set may end its scope: the engine checks after the chain.
    const scope = this.wf.compiled.activities[activity]?.scope;
    if (scope !== undefined && isActiveDigit(from) && !isActiveDigit(to)) {
      this.state.scopeChecks.push({ scope, dimension: this.dimension });
    }
    if (isActiveDigit(from) && !isActiveDigit(to)) this.watch(activity, this.dimension);
  }

  /** Asks each collect `activity` is upstream of to check its reachability after the chain. */
  private watch(activity: string, dimension: string): void {
    for (const collect of this.wf.watchers.get(activity) ?? []) {
      this.state.collectChecks.push({ collect, dimension });
    }
  }

  /**
   * Sets an activity's digit whatever it holds (unchecked): the aggregate digit of an
   * activity that runs in many threads, which may start again when a collect opens the
   * next batch's thread after the previous one passed.
   */
  async forceDigit(activity: string, to: CollationDigit): Promise<void> {
    const key = await this.collation();
    const from = digitOf(this.wf.layout, key, activity);
    if (from === to) return;
    await this.state.addCounter(
      { job: this.job.id, field: COLLATION_FIELD },
      digitDelta(this.wf.layout, activity, from, to),
    );
    this.moves[activity] = [this.moves[activity]?.[0] ?? from, to];
  }

  /**
   * One thread's move of an activity that runs in many (see `thread-region.ts`): its start
   * changes nothing (the digit went to 8 when the threads opened); its end counts the
   * thread as passed, and when every thread has passed the digit shows how they ended —
   * 7 if one errored unhandled, else 6 if one ran, else 3.
   */
  private async passThread(activity: string, to: CollationDigit, opened: string): Promise<void> {
    if (isActiveDigit(to)) return;
    const ref = (field: string) => ({ job: this.job.id, activity, dimension: opened, field });
    const left = await this.state.addCounter(ref('left'), -1n);
    if (to === 7) await this.state.addCounter(ref('failed'), 1n);
    else if (to !== 3) await this.state.addCounter(ref('ran'), 1n);
    if (left > 0n) return;
    const failed = (await this.state.counter(ref('failed'))) ?? 0n;
    const ran = (await this.state.counter(ref('ran'))) ?? 0n;
    await this.forceDigit(activity, failed > 0n ? 7 : ran > 0n ? 6 : 3);
    this.watch(activity, opened);
  }

  /** The next collect a move of this chain asked to check (see `checkCollects`), once. */
  takeCollectCheck(): { collect: string; dimension: string } | undefined {
    return this.state.collectChecks.shift();
  }

  /** Asks a collect to check its reachability after the chain. */
  checkCollect(collect: string, dimension: string): void {
    this.state.collectChecks.push({ collect, dimension });
  }

  /** One activity's records in many threads, read in a few queries. */
  recordsIn(activity: string, dimensions: readonly string[]): Promise<ActivityRecord[]> {
    return this.state.activityIn(activity, dimensions);
  }

  /**
   * Notes a disposal: `activity` ran and `what` (one of its outputs) carries nothing. After
   * the chain, a job with an `end:` checks it can still reach it.
   */
  dispose(activity: string, what: string): void {
    this.state.disposals.push({ activity, dimension: this.dimension, what });
  }

  /** The disposals of this chain so far, once. */
  takeDisposals(): Disposal[] {
    return this.state.disposals.splice(0);
  }

  /** The next scope a move of this chain asked to check (see `closeScopes`), once. */
  takeScopeCheck(): { scope: string; dimension: string } | undefined {
    return this.state.scopeChecks.shift();
  }

  /** A counter of this job (a semaphore, a join's settle count…); undefined when unset. */
  counter(ref: CounterRef): Promise<bigint | undefined> {
    return this.state.counter(ref);
  }

  /** Plans an add to a counter of this job and returns the value it will have. */
  addCounter(ref: CounterRef, delta: bigint, initial?: bigint): Promise<bigint> {
    return this.state.addCounter(ref, delta, initial);
  }

  // ── activity records ───────────────────────────────────────────────────

  /** An activity's record in a dimension, as stored plus this chain's writes. */
  record(activity: string, dimension = ''): Promise<ActivityRecord | undefined> {
    return this.state.activity(activity, dimension);
  }

  /** Every activity record of this job in every thread (for reverts: read from the store). */
  allRecords(): Promise<ActivityRecord[]> {
    return this.state.allActivities();
  }

  /** Every activity-level counter `field` of this job, by `<activity>\u0000<dimension>`. */
  countersNamed(field: string): Promise<Map<string, bigint>> {
    return this.state.countersNamed(field);
  }

  /** Plans a write of an activity's record of this job. */
  putActivity(write: Omit<ActivityWrite, 'job'>, options?: ActivityMoveOptions): void {
    this.state.putActivity({ job: this.job.id, ...write }, this.clock.now(), options);
    const key = `${write.activity}\u0000${write.dimension ?? ''}`;
    const own: OwnWrite = { ...this.writes.get(key) };
    if (write.status !== undefined) own.status = write.status;
    if (write.attempt !== undefined) own.attempt = write.attempt;
    if (write.error !== undefined) own.error = write.error;
    this.writes.set(key, own);
  }

  /** Notes on this step's history line that `activity`'s next attempt waits `delayMs`. */
  noteRetry(activity: string, delayMs: number): void {
    const key = `${activity}\u0000${this.dimension}`;
    this.writes.set(key, { ...this.writes.get(key), retryInMs: delayMs });
  }

  // ── messages, timers, waiters, jobs ────────────────────────────────────

  /** Queues an engine message for this job. */
  sendEngine(message: EngineMessage): void {
    if (this.hold?.(message)) {
      this.held.push(message);
      return;
    }
    this.send({ stream: ENGINE_STREAM, job: message.job, payload: message as unknown as Json });
  }

  /** Queues any message. */
  send(message: NewMessage): void {
    this.state.plan.append.push(message);
  }

  /** Plans putting a job in line in its queue (its first messages sent parked). */
  enqueue(item: NewQueueItem): void {
    this.state.plan.enqueue.push(item);
    this.state.plan.history.push(queuedLine(item, this.clock.now()));
  }

  /** Plans a durable timer (replacing one with the same key). */
  scheduleTimer(timer: NewTimer): void {
    this.state.plan.timers.push(timer);
  }

  /** Plans cancelling a timer by key. */
  cancelTimer(key: string): void {
    this.state.plan.cancelTimers.push(key);
  }

  /** Plans a signal waiter (a signal kept for it already is delivered when applied). */
  registerWaiter(waiter: NewWaiter): void {
    this.state.plan.waiters.push(waiter);
  }

  /** Plans removing a signal waiter. */
  removeWaiter(key: string): void {
    this.state.plan.removeWaiters.push(key);
  }

  /** Plans a new job (a child), with its first counters, messages and history line. */
  async createJob(
    job: NewJob,
    counters: { ref: CounterRef; initial: bigint }[],
    messages: NewMessage[],
    start?: NewHistoryEntry,
  ): Promise<void> {
    this.state.plan.jobs.push(job);
    for (const c of counters) await this.state.addCounter(c.ref, 0n, c.initial);
    this.state.plan.append.push(...messages);
    if (start) this.state.plan.history.push(start);
  }

  /** Reads another job (a child), without locking it. */
  readJob(id: string): Promise<JobRecord | undefined> {
    return this.state.readJob(id);
  }

  /** Records the error that will end the job in FAILURE once nothing is active. */
  recordJobError(error: ErrorRecord): void {
    this.job.error = error;
    this.state.plan.jobPatches.push({ id: this.job.id, patch: { error } });
  }

  /** Plans this job's move to a final state (or, reopening it, out of one). */
  endJob(from: FlowState, to: FlowState, patch: JobPatch): void {
    this.state.plan.jobStates.push({ id: this.job.id, from, to, patch });
    this.jobMove = to;
    // Later steps of the same batch see the job over.
    this.job.state = to;
  }

  /** Plans the history line of this job's end, in the state it ends in. */
  noteEnd(state: FlowState, error: ErrorRecord | null): void {
    this.state.plan.history.push(stateEntry(this.job.id, 'end', state, error, this.clock.now()));
  }

  // ── history ────────────────────────────────────────────────────────────

  /**
   * Plans this step's history line: `kind` (its message's kind) about `activity` in this
   * step's dimension, with the digits it moved, the key after it, and what it wrote on
   * that activity's record.
   */
  async noteStep(kind: GraphHistoryKind, activity: string | null): Promise<void> {
    const own =
      activity === null ? undefined : this.writes.get(`${activity}\u0000${this.dimension}`);
    this.state.plan.history.push(
      stepEntry(
        this.job.id,
        kind,
        activity,
        this.dimension,
        {
          digits: this.moves,
          collation: this.wf.renderKey(await this.collation()),
          own,
          state: this.jobMove,
        },
        this.clock.now(),
      ),
    );
  }

  // ── expressions ────────────────────────────────────────────────────────

  /**
   * The data expressions see: `{ input, <activity>: { output, error, status } }`. When an
   * activity ran in several dimensional threads (a cycle, a spread), the record of this
   * step's own dimension wins, else the newest one. Evaluated inside `scope`, the members
   * of that scope and of each scope around it are also there by their short id (the
   * innermost name wins over an outer activity of the same name). With `names`, only
   * those names (as the expression reads them) are looked up: an expression in one of a
   * spread's threads reads its own records, not every thread's.
   */
  async data(scope?: string, names?: ReadonlySet<string>): Promise<Record<string, Json>> {
    const chain = scope === undefined ? [] : scopeChain(scope, this.wf.scopeOf);
    const data = names ? await this.someData(this.activityIds(names, chain)) : await this.allData();
    if (scope === undefined) return data;
    const view: Record<string, Json> = { ...data };
    for (const s of chain) {
      const members = (this.wf.compiled.activities[s] as { members?: string[] } | undefined)
        ?.members;
      for (const member of members ?? []) {
        view[member.slice(s.length + 1)] = data[member] ?? null;
      }
      // The innermost retry controller around gives `retry: { value, attempt }`.
      const controlled = (this.wf.compiled.activities[s] as { retry?: unknown } | undefined)?.retry;
      const at = controlled ? threadOf(this.dimension, s) : undefined;
      if (at) {
        const input = (await this.record(s, at.parent))?.input as {
          retry?: { value: Json; attempt: number };
        } | null;
        if (input?.retry) view.retry = { value: input.retry.value, attempt: input.retry.attempt };
      }
    }
    return view;
  }

  /** The activities behind `names`: each name, and each scope member it is the short id of. */
  private activityIds(names: ReadonlySet<string>, chain: readonly string[]): string[] {
    const ids = [...names].filter((n) => n !== 'input' && this.wf.compiled.activities[n]);
    for (const s of chain) {
      const members = (this.wf.compiled.activities[s] as { members?: string[] } | undefined)
        ?.members;
      for (const member of members ?? []) {
        if (names.has(member.slice(s.length + 1))) ids.push(member);
      }
    }
    return ids;
  }

  /** The data with every activity's entry (the job's output, `$`, `$$`…). */
  private async allData(): Promise<Record<string, Json>> {
    const data = this.expressionData ?? { input: this.job.input };
    this.expressionData = data;
    if (this.complete) return data;
    const records = await this.state.candidates();
    const rank = (r: ActivityRecord) => [
      r.dimension === this.dimension ? 1 : 0,
      r.updatedAt,
      Number(/#(\d+)$/.exec(r.dimension)?.[1] ?? 0),
    ];
    const best = new Map<string, ActivityRecord>();
    for (const r of records) {
      const held = best.get(r.activity);
      if (!held || compareRanks(rank(r), rank(held)) > 0) best.set(r.activity, r);
    }
    // An entry looked up earlier in this step stays as it was read.
    for (const [activity, r] of best) {
      if (!this.looked.has(activity)) data[activity] = this.entry(activity, r);
    }
    for (const activity of best.keys()) this.looked.add(activity);
    this.complete = true;
    return data;
  }

  /** The data with the entries of `activities` looked up (each once per step). */
  private async someData(activities: readonly string[]): Promise<Record<string, Json>> {
    const data = this.expressionData ?? { input: this.job.input };
    this.expressionData = data;
    if (this.complete) return data;
    for (const activity of activities) {
      if (this.looked.has(activity)) continue;
      this.looked.add(activity);
      const r = this.state.held(activity, this.dimension) ?? (await this.newest(activity));
      if (r) data[activity] = this.entry(activity, r);
    }
    return data;
  }

  /**
   * The record expressions read of an activity with none in memory in this step's thread:
   * the newest stored one when it is in this thread, else the newest of all.
   */
  private async newest(activity: string): Promise<ActivityRecord | undefined> {
    const { held, stored } = await this.state.newestOf(activity);
    if (stored?.dimension === this.dimension) return stored;
    return !held ? stored : !stored || newerRecord(held, stored) ? held : stored;
  }

  /** What expressions see of one record of `activity`. */
  private entry(activity: string, r: ActivityRecord): Json {
    // A spread's record in one of its threads holds that thread's item: `fan.item`.
    const output = r.output as { item?: Json; index?: number } | null;
    if (this.wf.compiled.activities[activity]?.kind === 'spread' && output?.index !== undefined) {
      return { ...output, output: r.output, error: null, status: r.status };
    }
    return { output: r.output, error: r.error as Json, status: r.status };
  }

  /** Records an activity's output so later expressions in this step see it. */
  remember(activity: string, value: { output?: Json; error?: Json; status: string }): void {
    if (this.expressionData) {
      this.expressionData[activity] = {
        output: value.output ?? null,
        error: value.error ?? null,
        status: value.status,
      };
      this.looked.add(activity);
    }
  }

  /**
   * Evaluates a JSONata expression over this job's data, as seen from inside `scope` (the
   * enclosing scope of the activity it belongs to) when given: a cheap one here, any other
   * outside the transaction (expression-plan.ts). Only the names it reads are looked up,
   * unless it may read any (expression-reads.ts). Throws ExpressionError when it
   * fails, which the caller turns into its activity's failure.
   */
  async evaluate(expression: string, where: string, scope?: string): Promise<Json> {
    const data = await this.readsOf(expression, scope);
    return planExpression(expression, data, where, this.clock.now());
  }

  /**
   * Reads what `expression` would see from inside `scope` (only the names it reads,
   * unless it may read any), without evaluating it: a later {@link evaluate} sees the
   * data as it was now, even after {@link remember}.
   */
  async readsOf(expression: string, scope?: string): Promise<Record<string, Json>> {
    const reads = expressionReads(expression);
    return this.data(scope, reads === 'all' ? undefined : reads);
  }

  // ── chains of steps ────────────────────────────────────────────────────

  /**
   * From now on, engine messages `hold` accepts are kept back — to run inline, as steps
   * of the same plan, right after this one — instead of being appended to the stream.
   */
  holdBack(hold: (message: EngineMessage) => boolean): void {
    this.hold = hold;
  }

  /**
   * The step for another message of the same job in the same plan, run right after this
   * one: it shares the job's state — reads made, writes planned — so the chain's moves of
   * the collation key fold into one add.
   */
  successor(dimension: string): Step {
    return new Step(this.state, this.wf, this.clock, dimension, this.loadWorkflow, this.random);
  }

  /** The engine messages kept back by {@link holdBack}, once. */
  takeHeld(): EngineMessage[] {
    return this.held.splice(0);
  }

  /** The whole plan of the chain so far, as one unit of work. */
  unit(): UnitOfWork {
    return this.state.unit();
  }
}
