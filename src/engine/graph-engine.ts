/**
 * The graph interpreter. It is stateless: every call takes a store transaction and a
 * batch of messages (one message is a batch of one), locks their jobs, plans every step
 * over the jobs' state, and applies what it decided in that transaction as one unit of
 * work. Any process can run any step of any job.
 */
import { type Clock, SystemClock } from '../core/clock.js';
import { isComplete } from '../core/collation.js';
import { COLLATION_DIGITS, isActiveDigit } from '../core/collation-digits.js';
import {
  ExpressionError,
  ExpressionsPendingError,
  type PendingExpression,
  toErrorRecord,
  UnreachableError,
  ValidationError,
} from '../core/errors.js';
import type { RandomSource } from '../core/retry-policy.js';
import { revertedFlowState } from '../core/revert-order.js';
import { isFinalFlowState } from '../core/states.js';
import type { ErrorRecord, JobRecord, Json } from '../store/records.js';
import type { StoreTx, UnitOfWork } from '../store/store.js';
import { applyUnit, mergeUnits } from '../store/unit-of-work.js';
import { yieldIfDue } from '../store/yield-point.js';
import { addressOf, failDeadLettered, reopenDeadLettered } from './dead-letter.js';
import type { GraphHistoryKind } from './history.js';
import {
  type DeadlineMessage,
  deadlineRef,
  deadlineTimerKey,
  deadlineWrites,
  dropJobWork,
  isDeadlineMessage,
  runningChildren,
} from './job-deadline.js';
import { JobState } from './job-state.js';
import type { Leg2Message } from './kinds/activity-kind.js';
import { checkCollects } from './kinds/collect.js';
import { kindOf } from './kinds/index.js';
import { closeScopes } from './kinds/scope.js';
import { respondTask } from './kinds/task.js';
import { passLeg1 } from './legs.js';
import { type LoadedWorkflow, loadWorkflow, WorkflowCache } from './loaded-workflow.js';
import {
  type ActivityAddress,
  ENGINE_STREAM,
  type EngineMessage,
  type TaskResponse,
} from './messages.js';
import { respondRevert, revertsJob, startJobRevert } from './revert.js';
import { Step } from './step.js';
import {
  dropParked,
  heldWhileSuspended,
  isNewWork,
  parked,
  settleSuspending,
  startsNothing,
} from './suspension.js';
import { planTimeOut } from './time-out.js';
import { QUEUED_FIELD } from './transitions.js';

/** What one step did, for the worker's bookkeeping and tests. */
export interface StepResult {
  /**
   * `ran`: the step did its work; `duplicate`: the semaphore refused it; `dropped`: the
   * job is gone or over; `parked`: the job is suspended, and the entry waits for its resume.
   */
  status: 'ran' | 'duplicate' | 'dropped' | 'parked';
  /** The job ended in this step, in this state. */
  ended?: JobRecord['state'];
}

/** Options of the graph engine. */
export interface GraphEngineOptions {
  clock?: Clock;
  /**
   * How many `enter` messages of the job it is already running one call may run inline,
   * in the same transaction, instead of appending them to the engine stream (default 0:
   * every step goes through the stream and is observable on its own). Workers set it, so
   * a job's next activity starts in the transaction that ended the previous one: the
   * same steps, each still guarded by its semaphore, without a commit and a claim
   * between them. Past the budget, messages are appended as usual.
   */
  inlineSteps?: number;
  /**
   * Who commits this engine's steps, as their history lines name it: a worker's consumer
   * id (default null: a client).
   */
  worker?: string | null;
  /** Random numbers in [0, 1) for the jitter of retry delays (default `Math.random`). */
  random?: RandomSource;
}

/** One piece of a batch: a step to run over a job's state. */
interface BatchWork {
  job: string;
  d: string;
  /** What the step's history line calls it, and the activity it is for. */
  kind: GraphHistoryKind;
  a: string;
  body: (step: Step) => Promise<boolean>;
  /** The engine message, for an entry (parked as it is while its job is suspended). */
  message?: EngineMessage;
}

/** How many more steps the current call may run inline. */
interface InlineBudget {
  left: number;
}

/** Runs graph-workflow steps. */
export class GraphEngine {
  readonly clock: Clock;
  private readonly inlineSteps: number;
  private readonly worker: string | null;
  private readonly random: RandomSource;
  private readonly cache = new WorkflowCache();

  constructor(options: GraphEngineOptions = {}) {
    this.clock = options.clock ?? new SystemClock();
    this.inlineSteps = Math.max(0, Math.floor(options.inlineSteps ?? 0));
    this.worker = options.worker ?? null;
    this.random = options.random ?? Math.random;
  }

  /** The loaded form of a stored workflow version. */
  workflow(tx: StoreTx, workflow: string, version: number): Promise<LoadedWorkflow> {
    return this.cache.get(tx, workflow, version);
  }

  /** Runs one engine-stream message. */
  async handle(tx: StoreTx, message: EngineMessage): Promise<StepResult> {
    const [result] = await this.handleBatch(tx, [message]);
    return result as StepResult;
  }

  /**
   * Runs a batch of engine messages as one unit: the batch's jobs are locked in id order
   * and read in two set-based queries (their counters and activity records), every step
   * plans over that snapshot in memory, in message order, and all their writes are
   * applied at the end in one unit of work. A job that ends in the batch drops the
   * messages after it, as it would had each committed alone. A job's deadline (see
   * {@link timeOut}) runs first, on its own.
   */
  async handleBatch(
    tx: StoreTx,
    messages: readonly (EngineMessage | DeadlineMessage)[],
  ): Promise<StepResult[]> {
    const results = new Map<number, StepResult>();
    const steps: EngineMessage[] = [];
    for (const [i, m] of messages.entries()) {
      if (isDeadlineMessage(m)) results.set(i, await this.timeOut(tx, m));
      else steps.push(m);
    }
    const ran = await this.runBatch(
      tx,
      steps.map((m) => this.workOf(m)),
    );
    if (results.size === 0) return ran;
    return messages.map((_, i) => results.get(i) ?? (ran.shift() as StepResult));
  }

  private workOf(m: EngineMessage): BatchWork {
    return { job: m.job, d: m.d, kind: m.k, a: m.a, body: this.bodyOf(m), message: m };
  }

  /**
   * Ends a running graph job whose deadline passed, at once, in FAILURE (`time-out.ts`):
   * its started and paused activities to 7, its child jobs told to end too, its task
   * messages deleted. A suspended job keeps the message parked until it resumes; a job
   * that has ended drops it.
   */
  async timeOut(tx: StoreTx, message: DeadlineMessage): Promise<StepResult> {
    const job = await tx.lockJob(message.job);
    if (job?.model !== 'graph' || isFinalFlowState(job.state)) return { status: 'dropped' };
    if (startsNothing(job.state)) {
      const payload = message as unknown as Json;
      await tx.append([parked(job.id, { stream: ENGINE_STREAM, payload })]);
      return { status: 'parked' };
    }
    const children = await runningChildren(tx, job.id);
    const state = new JobState(tx, job);
    const step = await this.newStep(tx, state, '');
    await planTimeOut(step, message, children);
    await step.noteStep('deadline', null);
    await this.finishJob(step, false);
    await applyUnit(tx, this.signed(state.unit()));
    await dropJobWork(tx, job.id);
    return { status: 'ran', ended: 'FAILURE' };
  }

  /** Runs several task responses (Leg2s) as one unit, as {@link handleBatch} does. */
  async respondBatch(tx: StoreTx, responses: readonly TaskResponse[]): Promise<StepResult[]> {
    return this.runBatch(
      tx,
      responses.map((r) => ({
        job: r.job,
        d: r.d,
        kind: r.revert ? ('revert' as const) : ('task' as const),
        a: r.a,
        body: (step: Step) => (r.revert ? respondRevert(step, r) : respondTask(step, r)),
      })),
    );
  }

  private bodyOf(message: EngineMessage): (step: Step) => Promise<boolean> {
    if (message.k === 'enter') {
      return (step) => this.enter(step, { job: message.job, a: message.a, d: message.d });
    }
    return (step) => respond(step, message);
  }

  /** Leg1 of an activity; false when it already ran. */
  private async enter(step: Step, address: ActivityAddress): Promise<boolean> {
    if (!(await passLeg1(step, address))) return false;
    const queued = { job: address.job, activity: address.a, field: QUEUED_FIELD };
    if (((await step.counter(queued)) ?? 0n) > 0n) await step.addCounter(queued, -1n);
    const activity = step.activity(address.a);
    await kindOf(activity).enter(step, address, activity);
    return true;
  }

  /** Runs one task response (Leg2 of a task). */
  async respond(tx: StoreTx, response: TaskResponse): Promise<StepResult> {
    const [result] = await this.respondBatch(tx, [response]);
    return result as StepResult;
  }

  private async runBatch(tx: StoreTx, works: BatchWork[]): Promise<StepResult[]> {
    const ids = [...new Set(works.map((w) => w.job))];
    // A suspending or suspended job records what arrives for it (task results, wake-ups,
    // signals, children) but starts nothing: its entries, and the new work its steps plan,
    // are parked until it resumes.
    // Only the threads the batch's messages run in (and the job's own, '') are read: a
    // job that cycled a thousand times keeps a thousand threads nobody here needs. The
    // reads are issued behind the lock at once (the store runs them in order, so they see
    // the jobs locked) and may include a job found ended, which is then left out.
    const dimensions = [...new Set(['', ...works.map((w) => w.d)])];
    const [locked, counters, records] = await Promise.all([
      tx.lockJobs(ids),
      tx.countersOfJobs(ids, dimensions),
      tx.activitiesOfJobs(ids, dimensions),
    ]);
    const live = locked.filter(
      (job) => (job.state === 'RUNNING' || startsNothing(job.state)) && job.model === 'graph',
    );
    const stopped = new Set(live.filter((job) => startsNothing(job.state)).map((job) => job.id));
    const states = new Map<string, JobState>();
    /** Each job's snapshot, to plan a step over it again (see `pending` below). */
    const snapshots = new Map<string, () => JobState>();
    for (const job of live) {
      const own = new Set(['', ...works.filter((w) => w.job === job.id).map((w) => w.d)]);
      const jobCounters = counters.filter(
        (c) => c.ref.job === job.id && own.has(c.ref.dimension ?? ''),
      );
      const jobRecords = records.filter((r) => r.job === job.id && own.has(r.dimension));
      const fresh = (record: JobRecord) => {
        const state = new JobState(tx, record);
        state.seed(jobCounters, jobRecords, own);
        return state;
      };
      snapshots.set(job.id, () => fresh({ ...job }));
      states.set(job.id, fresh(job));
    }
    const results: StepResult[] = [];
    // Expressions the batch needs evaluated outside the transaction (expression-plan.ts).
    // A job whose step needs one plans no further; its later steps are still planned, each
    // over a copy of the snapshot, only to find the expressions they will need too, so
    // the next run has them all.
    const pending: PendingExpression[] = [];
    const waiting = new Set<string>();
    for (const work of works) {
      // A long batch gives the event loop a turn between its steps (yield-point.ts).
      await yieldIfDue();
      const state = states.get(work.job);
      const at = state?.job.state;
      if (!state || !at || !(at === 'RUNNING' || startsNothing(at))) {
        results.push({ status: 'dropped' });
        continue;
      }
      if (waiting.has(work.job)) {
        await this.foresee(tx, (snapshots.get(work.job) as () => JobState)(), work, pending);
        continue;
      }
      if (at !== 'RUNNING' && work.message && heldWhileSuspended(work.message)) {
        const payload = work.message as unknown as Json;
        state.plan.append.push(parked(work.job, { stream: ENGINE_STREAM, payload }));
        results.push({ status: 'parked' });
        continue;
      }
      const budget = { left: at === 'RUNNING' ? this.inlineSteps : 0 };
      try {
        results.push(await this.advance(tx, state, work, budget));
      } catch (error) {
        if (!(error instanceof ExpressionsPendingError)) throw error;
        pending.push(...error.requests);
        waiting.add(work.job);
      }
    }
    if (pending.length > 0) throw new ExpressionsPendingError(pending);
    for (const state of states.values()) {
      if (!startsNothing(state.job.state)) continue;
      const id = state.job.id;
      const append = state.plan.append;
      append.splice(
        0,
        append.length,
        ...append.map((m) =>
          isNewWork(id, m) ? parked(id, m as { stream: string; payload: Json }) : m,
        ),
      );
    }
    await applyUnit(tx, this.signed(mergeUnits([...states.values()].map((s) => s.unit()))));
    for (const state of states.values()) {
      // A paused job whose last work finished ended: what it kept parked (its deadline's
      // message, say) has nothing left to run for.
      if (stopped.has(state.job.id) && isFinalFlowState(state.job.state)) {
        await dropParked(tx, state.job.id);
      }
      if (state.job.state !== 'SUSPENDING') continue;
      if (
        await settleSuspending(tx, state.job.id, { now: this.clock.now(), worker: this.worker })
      ) {
        state.job.state = 'SUSPENDED';
      }
    }
    return results;
  }

  /**
   * Plans a step over a throwaway copy of its job's snapshot, only to collect the
   * expressions it needs evaluated outside the transaction; what it planned is dropped.
   */
  private async foresee(
    tx: StoreTx,
    state: JobState,
    work: BatchWork,
    pending: PendingExpression[],
  ): Promise<void> {
    if (state.job.state !== 'RUNNING' && work.message?.k === 'enter') return;
    const budget = { left: state.job.state === 'RUNNING' ? this.inlineSteps : 0 };
    try {
      await this.advance(tx, state, work, budget);
    } catch (error) {
      // Planned over a snapshot that lacks the steps before it: any other error is moot.
      if (error instanceof ExpressionsPendingError) pending.push(...error.requests);
    }
  }

  /** The unit with this engine's worker named on its history lines. */
  private signed(unit: UnitOfWork): UnitOfWork {
    for (const entry of unit.history ?? []) entry.worker = this.worker;
    return unit;
  }

  /** Runs one step (and the steps it holds back) over a job's state, planning only. */
  private async advance(
    tx: StoreTx,
    state: JobState,
    work: BatchWork,
    budget: InlineBudget,
  ): Promise<StepResult> {
    const { job } = state;
    const step = await this.newStep(tx, state, work.d);
    const hold =
      budget.left > 0
        ? (m: EngineMessage) => m.k === 'enter' && m.job === job.id && budget.left-- > 0
        : undefined;
    if (hold) step.holdBack(hold);
    if (!(await work.body(step))) return { status: 'duplicate' };
    await step.noteStep(work.kind, work.a);
    // Held `enter` messages run now, in this transaction, each a step of its own that
    // continues from the one before.
    let last = step;
    const queue = step.takeHeld();
    // A step that needs an expression evaluated outside the transaction spoils this plan;
    // the steps after it still run, only to find the expressions they need too (one
    // round for a spread's items, not one per item), and then the plan is dropped.
    let pending: PendingExpression[] | undefined;
    for (let message = queue.shift(); message; message = queue.shift()) {
      await yieldIfDue();
      await state.loadDimension(message.d);
      const next = last.successor(message.d);
      if (hold) next.holdBack(hold);
      try {
        if (await this.enter(next, { job: message.job, a: message.a, d: message.d })) {
          await next.noteStep('enter', message.a);
        }
      } catch (error) {
        if (error instanceof ExpressionsPendingError) {
          pending = [...(pending ?? []), ...error.requests];
        } else if (!pending) throw error;
      }
      queue.push(...next.takeHeld());
      last = next;
    }
    if (pending) throw new ExpressionsPendingError(pending);
    // Collects nothing can reach any more emit, and scopes whose members are all done end
    // (each may wake the other); their successors go to the stream.
    for (let more = true; more; ) {
      more = (await closeScopes(last)) || (await checkCollects(last));
      if (more) last = last.successor(last.dimension);
    }
    const ended = await this.endIfDone(last);
    return ended ? { status: 'ran', ended } : { status: 'ran' };
  }

  /** A step over a locked job's state. */
  private async newStep(tx: StoreTx, state: JobState, dimension: string): Promise<Step> {
    const { job } = state;
    const wf = await this.cache.get(tx, job.workflow, job.version);
    const loadLatest = async (workflow: string): Promise<LoadedWorkflow> => {
      const record = await tx.getDefinition(workflow);
      if (!record) {
        throw new ValidationError(
          `workflow ${JSON.stringify(workflow)} is not deployed`,
          `activity await`,
        );
      }
      return this.cache.get(tx, workflow, record.version);
    };
    return new Step(state, wf, this.clock, dimension, loadLatest, this.random);
  }

  /**
   * Ends the job of a dead-lettered engine or task message (its `payload`) in FAILURE at
   * once, with `error`: the message's activity moves to 7 and a parent job is told.
   * False when the job is not a running graph job.
   */
  async endDeadLettered(
    tx: StoreTx,
    jobId: string,
    payload: Json,
    error: ErrorRecord,
  ): Promise<boolean> {
    const job = await tx.lockJob(jobId);
    if (!job || !(job.state === 'RUNNING' || startsNothing(job.state)) || job.model !== 'graph') {
      return false;
    }
    const state = new JobState(tx, job);
    const step = await this.newStep(tx, state, '');
    const address = addressOf(step, payload);
    await failDeadLettered(step, address, error);
    await step.noteStep('dead-letter', address?.a ?? null);
    // A dead letter ends the job at once: no revert runs (its message may be a revert's).
    await this.finishJob(step, false);
    await applyUnit(tx, this.signed(state.unit()));
    return true;
  }

  /**
   * Undoes {@link endDeadLettered} when that message is requeued: the job RUNNING again,
   * its activity back where it stood. False (nothing changed) when the job did not end
   * because of dead letter `messageId`.
   */
  async reopenDeadLettered(
    tx: StoreTx,
    jobId: string,
    payload: Json,
    messageId: string,
  ): Promise<boolean> {
    const job = await tx.lockJob(jobId);
    const error = job?.error;
    if (job?.state !== 'FAILURE' || job.model !== 'graph') return false;
    if (error?.code !== 'DEAD_LETTER' || error.messageId !== messageId) return false;
    const state = new JobState(tx, job);
    const step = await this.newStep(tx, state, '');
    const address = addressOf(step, payload);
    await reopenDeadLettered(step, address, error);
    await step.noteStep('reopen', address?.a ?? null);
    // Its deadline's timer was cancelled when it ended: it runs under the same deadline.
    const deadline = await step.counter(deadlineRef(jobId));
    if (deadline !== undefined) {
      const limit = Number(deadline) - job.createdAt;
      step.scheduleTimer(deadlineWrites(jobId, ENGINE_STREAM, limit, job.createdAt).timer);
    }
    await applyUnit(tx, this.signed(state.unit()));
    return true;
  }

  /**
   * Ends the job when a chain of steps leaves it done: without `end:`, when nothing is
   * active; with one, when that activity has ended, or — after a disposal, or with nothing
   * active — when it can no longer be reached (UnreachableError naming the disposal).
   */
  private async endIfDone(step: Step): Promise<JobRecord['state'] | undefined> {
    const { wf } = step;
    const disposals = step.takeDisposals();
    const complete = isComplete(wf.layout, await step.collation());
    const end = wf.compiled.end;
    if (end === undefined || step.job.error) {
      return complete ? this.finishJob(step) : undefined;
    }
    const digit = await step.digit(end);
    if (digit === COLLATION_DIGITS.completed || digit === COLLATION_DIGITS.released) {
      return this.finishJob(step, true, end);
    }
    if (!complete && (disposals.length === 0 || (await canStillReach(step, end)))) {
      return undefined;
    }
    const last = disposals[disposals.length - 1];
    const error = new UnreachableError(
      `job can no longer reach its end ${JSON.stringify(end)}${
        last
          ? `: ${last.what}${last.dimension ? ` (thread ${last.dimension})` : ''} left nothing that leads there`
          : ''
      }`,
      last?.activity,
    );
    step.recordJobError({
      ...(toErrorRecord(error) as ErrorRecord),
      ...(last && { activity: last.activity }),
    });
    return this.finishJob(step);
  }

  /**
   * Ends a job whose key has no active digit. A job with `on_failure: revert` that ends
   * with an error first reverts (`revert.ts`): while a revert starts, the job runs on and
   * this returns undefined; with none left it ends REVERTED, or FAILURE when a revert
   * failed. `revert` false (a dead letter) ends it at once. With `end`, the output is
   * that activity's (unless the workflow has `output:`).
   */
  private async finishJob(
    step: Step,
    revert = true,
    end?: string,
  ): Promise<JobRecord['state'] | undefined> {
    const { job, wf } = step;
    let error: ErrorRecord | null = job.error;
    let output: Json = null;
    if (error && revert && (await revertsJob(step, error))) {
      if (await startJobRevert(step)) return undefined;
      return this.endJob(step, revertedFlowState(error), null, job.error);
    }
    if (!error) {
      try {
        output = wf.compiled.output
          ? await step.evaluate(wf.compiled.output, 'workflow output')
          : end !== undefined
            ? (((await step.data())[end] as { output?: Json } | undefined)?.output ?? null)
            : await defaultOutput(step);
      } catch (cause) {
        if (!(cause instanceof ExpressionError)) throw cause;
        error = toErrorRecord(cause) as ErrorRecord;
      }
    }
    return this.endJob(step, error ? 'FAILURE' : 'SUCCESS', output, error);
  }

  /**
   * Plans the job's end in `state`, its history line, and its parent's message; a job
   * with a deadline has its timer cancelled.
   */
  private async endJob(
    step: Step,
    state: JobRecord['state'],
    output: Json,
    error: ErrorRecord | null,
  ): Promise<JobRecord['state']> {
    const { job } = step;
    if ((await step.counter(deadlineRef(job.id))) !== undefined) {
      step.cancelTimer(deadlineTimerKey(job.id));
    }
    // A suspending job may end (its last running work finished); a suspended one ends
    // through RUNNING, the only move out of SUSPENDED.
    if (job.state === 'SUSPENDED') step.endJob('SUSPENDED', 'RUNNING', {});
    step.endJob(job.state, state, { output, error, finishedAt: this.clock.now() });
    step.noteEnd(state, error);
    const parent = (
      job.context as { parent?: { job: string; activity: string; dimension: string } } | null
    )?.parent;
    if (parent) {
      step.send({
        stream: ENGINE_STREAM,
        job: parent.job,
        payload: {
          k: 'child',
          job: parent.job,
          a: parent.activity,
          d: parent.dimension,
          child: job.id,
        },
      });
    }
    return state;
  }
}

/**
 * True while `target` can still run. Skips are eager (a target all of whose incoming
 * transitions settled without one firing is skipped at once, and the skip spreads), so a
 * target still pending (9), started or paused can be reached, and a skipped one (3) only
 * while a cycle that would put it back to pending is active.
 */
async function canStillReach(step: Step, target: string): Promise<boolean> {
  const digit = await step.digit(target);
  if (isActiveDigit(digit)) return true;
  if (digit !== COLLATION_DIGITS.skipped) return false;
  for (const [cycle, reset] of step.wf.reentered) {
    if (reset.includes(target) && isActiveDigit(await step.digit(cycle))) return true;
  }
  return false;
}

/** A Leg2 message, to the responder its activity's kind has for it. */
function respond(step: Step, message: Leg2Message): Promise<boolean> {
  const activity = step.activity(message.a);
  const responder = kindOf(activity).respond?.[message.k] as
    | ((step: Step, message: Leg2Message, activity: unknown) => Promise<boolean>)
    | undefined;
  if (!responder) {
    throw new ValidationError(
      `a ${activity.kind} activity takes no ${JSON.stringify(message.k)} message: ${JSON.stringify(message)}`,
      ENGINE_STREAM,
    );
  }
  return responder(step, message, activity);
}

/** With no `output:` expression, a job's output maps each finished leaf activity to its output. */
async function defaultOutput(step: Step): Promise<Json> {
  const data = await step.data();
  const out: Record<string, Json> = {};
  for (const id of step.wf.compiled.order) {
    if ((step.wf.outgoing.get(id) ?? []).length > 0) continue;
    const entry = data[id] as { status?: string; output?: Json } | undefined;
    if (entry?.status === 'SUCCESS') out[id] = entry.output ?? null;
  }
  return out;
}

export { loadWorkflow };
