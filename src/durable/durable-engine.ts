/**
 * The code-first runtime: the pure decision engine of this folder, run on the store.
 * Like the graph engine it is stateless — every call takes a store transaction, locks
 * the job, and leaves everything it decided in that transaction: the instance (its head
 * in the job's `context`, its history appended to the job's journal: see
 * `instance-store.ts`), task messages, timers for waits and timeouts, child instances,
 * events for other instances, and the job's state. It keeps the instances it wrote last
 * in memory, used only while they are the stored ones, so a step of a long instance
 * neither reads nor writes its whole history.
 *
 * When this process has the workflow's code, a triggered decision runs here, in the same
 * transaction (the code is deterministic and does no I/O); otherwise a `decide` message
 * goes to the workflow's decision stream for a process (or HTTP agent) that has it.
 * Likewise an instance started without the code (by a client) has its initial
 * properties written by the first process with the code that decides for it.
 *
 * Each work (task, child) also gets an activity semaphore as graph activities do: Leg1
 * when it is scheduled, Leg2 when its result is recorded, so a result recorded twice is
 * refused and the chaos check can read that every work ran once.
 */
import { randomUUID } from 'node:crypto';
import { type Clock, SystemClock } from '../core/clock.js';
import { NotFoundError, ValidationError } from '../core/errors.js';
import {
  isLeg2Closed,
  LEG1_ENTRY,
  LEG1_EXIT,
  LEG2_ENTRY,
  LEG2_FINAL_EXIT,
  SEMAPHORE_INITIAL,
} from '../core/semaphore.js';
import { isFinalFlowState } from '../core/states.js';
import {
  childDeadline,
  type DeadlineMessage,
  deadlineTimerKey,
  deadlineWrites,
  dropJobWork,
  jobTimeoutRecord,
  runningChildren,
  scheduleDeadline,
  startAtRef,
} from '../engine/job-deadline.js';
import {
  dropParked,
  parked,
  resumeJob,
  settleSuspending,
  startsNothing,
  suspendJob,
} from '../engine/suspension.js';
import { Issued } from '../store/issued.js';
import { enqueueStart } from '../store/queue-admission.js';
import type {
  ErrorRecord,
  JobRecord,
  Json,
  NewHistoryEntry,
  NewMessage,
} from '../store/records.js';
import type { StoreTx } from '../store/store.js';
import type { Action, FailureAction } from './actions.js';
import { failByDeadLetter, reopenAfterDeadLetter } from './dead-letter.js';
import { runDecision } from './decision-executer.js';
import type { DecisionOutcome } from './decisions.js';
import type { WorkflowDefinition } from './definitions.js';
import {
  type ActionMessage,
  DURABLE_STREAM,
  type DurableMessage,
  decisionStream,
} from './durable-messages.js';
import type { Effect } from './effects.js';
import { receiveAction } from './engine-actions.js';
import { pauseInstance, resumeInstance, terminateInstance } from './engine-control.js';
import { applyDecisions } from './engine-decisions.js';
import { startInstance } from './engine-start.js';
import { currentDecisionRequest, redeliverDecision, tryTriggerDecision } from './engine-trigger.js';
import {
  actionLine,
  controlLine,
  deadlineLine,
  decisionLine,
  retryLine,
  startLine,
  stateLine,
} from './history-lines.js';
import { type Instance, type Status, statusIndexOf } from './instance.js';
import { batchOf, InstanceBatch } from './instance-batch.js';
import { flowStateOf } from './instance-life.js';
import { cutInstance, findStep } from './instance-rerun.js';
import { receiveRevertResult } from './instance-revert.js';
import {
  InstanceCache,
  type LoadedInstance,
  loadInstance,
  planInstanceWrites,
  primeInstances,
} from './instance-store.js';
import { failByTimeout, scheduledWorks } from './instance-timeout.js';
import { moveJobState } from './job-state-path.js';
import { isLateAction, type LateAction, recordLateAction } from './late-results.js';
import { settledAsIs, settleInitialProperties } from './pending-properties.js';
import { taskMessage } from './task-message.js';
import { deadlineError, planTaskRetry } from './task-retry.js';
import { systemValueSource, type ValueSource } from './value-source.js';
import { initialProperties } from './workflow-object.js';

/** The version every code-first workflow is stored under (its code lives in workers). */
export const DURABLE_VERSION = 1;

/** What starts an instance. */
export interface DurableStart {
  id: string;
  workflow: string;
  input: Json[];
  parent?: { job: string; uuid: string };
  /** Its execution timeout in ms, over its workflow's own `timeoutMs`. */
  timeoutMs?: number;
  /** A delayed start: epoch ms before which its first decision does not run. */
  startAt?: number;
  /**
   * It waits in a queue: its first decision is left to its message (which the queue
   * parks until a slot admits it), never run in the start's transaction.
   */
  queued?: boolean;
}

/** Options of the runtime. */
export interface DurableEngineOptions {
  clock?: Clock;
  /** Workflows whose decisions this process runs itself. */
  workflows?: readonly WorkflowDefinition<never[], unknown>[];
  values?: ValueSource;
  /** Who commits this runtime's work, as the history names it: a worker's consumer id (default null: a client). */
  worker?: string | null;
}

/** The counter holding a revert's semaphore, beside its work's own (`sem`). */
const REVERT_SEMAPHORE = 'revert-sem';

/** Runs code-first instances on the store. */
export class DurableEngine {
  readonly clock: Clock;
  private readonly workflows = new Map<string, WorkflowDefinition<never[], unknown>>();
  private readonly values: ValueSource;
  private readonly worker: string | null;
  private readonly cache = new InstanceCache();
  /** Batches whose rows wait for the rest of their transaction (see {@link actBatch}). */
  private readonly held = new WeakMap<StoreTx, InstanceBatch>();

  constructor(options: DurableEngineOptions = {}) {
    this.clock = options.clock ?? new SystemClock();
    for (const wf of options.workflows ?? []) this.workflows.set(wf.name, wf);
    this.values = options.values ?? systemValueSource(this.clock);
    this.worker = options.worker ?? null;
  }

  /** The workflow names this process can decide for. */
  get workflowNames(): string[] {
    return [...this.workflows.keys()];
  }

  /** Starts an instance (idempotent by id) and runs its first decision when it can. */
  async start(tx: StoreTx, start: DurableStart): Promise<{ job: JobRecord; created: boolean }> {
    const now = this.clock.now();
    const definition = this.workflows.get(start.workflow);
    const instance = startInstance({
      id: start.id,
      workflowName: start.workflow,
      input: start.input,
      // Without the code the initial properties are left to the process that has it.
      properties: definition ? initialProperties(definition) : null,
      customId: start.id,
      now,
    });
    if (definition?.onFailure === 'revert') instance.on_failure = 'revert';
    if (start.startAt !== undefined) instance.start_at = start.startAt;
    const from = start.startAt ?? now;
    // Without the code here, the workflow's own timeout is settled by its first decision.
    const timeoutMs = start.timeoutMs ?? definition?.timeoutMs;
    if (timeoutMs !== undefined) instance.deadline = from + timeoutMs;
    const writes = planInstanceWrites(start.id, null, instance);
    const result = await tx.createJob({
      id: start.id,
      workflow: start.workflow,
      version: DURABLE_VERSION,
      model: 'durable',
      state: 'RUNNING',
      input: start.input,
      context: writes.patch.context,
      parentId: start.parent?.job ?? null,
      parentActivity: start.parent?.uuid ?? null,
      createdAt: now,
    });
    if (!result.created) return result;
    await tx.appendJournal(writes.journal);
    if (timeoutMs !== undefined) {
      await scheduleDeadline(tx, deadlineWrites(start.id, DURABLE_STREAM, timeoutMs, from));
    }
    const line = startLine(instance, start.parent?.job, now, timeoutMs);
    if (start.startAt !== undefined) {
      await tx.addCounter(startAtRef(start.id), 0n, BigInt(start.startAt));
      await this.delayFirstDecision(tx, result.job, writes.loaded, instance, start.startAt, line);
    } else if (start.queued) {
      await this.delayFirstDecision(tx, result.job, writes.loaded, instance, now, line);
    } else {
      await this.advance(tx, result.job, writes.loaded, instance, [], undefined, [line]);
    }
    return { job: (await tx.getJob(start.id)) as JobRecord, created: true };
  }

  /**
   * Reruns a code-first job from one of its steps (see instance-rerun.ts): a new job `id`
   * of the same workflow and input whose journal holds the old one's main-code results
   * before `from`; its first decision replays them and runs `from` and what follows. The
   * old job is left as it is. Refused (ValidationError `RERUN_REFUSED`) while the old job
   * has not ended; NotFoundError for an unknown step.
   */
  async rerun(
    tx: StoreTx,
    request: { source: string; from: string; id: string },
  ): Promise<{ job: JobRecord; kept: string[]; again: string[] }> {
    const { source: sourceId, from, id } = request;
    const now = this.clock.now();
    const refused = (message: string) =>
      new ValidationError(message, 'rerun', { code: 'RERUN_REFUSED' });
    // The old job's row is held until the new job commits: no step of it interleaves.
    const source = await tx.lockJob(sourceId);
    if (!source) throw new NotFoundError('job', sourceId);
    if (!isFinalFlowState(source.state)) {
      throw refused(
        `cannot rerun ${sourceId} from ${from}: it is still ${source.state} (cancel it first)`,
      );
    }
    const old = (await loadInstance(tx, source))?.instance;
    if (!old) throw new NotFoundError('step', `${from} in job ${sourceId} (it has no steps)`);
    const cut = findStep(old, from, sourceId);
    const input = (Array.isArray(source.input) ? source.input : [source.input]) as Json[];
    const planned = cutInstance(old, cut, input, id, now);
    const instance = planned.instance;
    // The workflow's timeout, as the old job had it, counts from the new job's start.
    const timeoutMs =
      old.deadline !== undefined ? old.deadline - (old.start_at ?? old.created_at) : undefined;
    if (timeoutMs !== undefined) instance.deadline = now + timeoutMs;
    const writes = planInstanceWrites(id, null, instance);
    const result = await tx.createJob({
      id,
      workflow: source.workflow,
      version: source.version,
      model: 'durable',
      state: 'RUNNING',
      input: source.input,
      context: writes.patch.context,
      parentId: null,
      parentActivity: null,
      createdAt: now,
    });
    if (!result.created) throw refused(`job ${id} exists already`);
    await tx.appendJournal(writes.journal);
    if (timeoutMs !== undefined) {
      await scheduleDeadline(tx, deadlineWrites(id, DURABLE_STREAM, timeoutMs, now));
    }
    const start = startLine(instance, undefined, now, timeoutMs);
    const line: NewHistoryEntry = {
      ...start,
      change: { ...(start.change as Record<string, Json>), rerunOf: sourceId, from },
    };
    await tx.appendHistory([
      {
        job: sourceId,
        kind: 'rerun',
        activity: from,
        change: { rerun: id },
        at: now,
        worker: this.worker,
      },
    ]);
    await this.advance(tx, result.job, writes.loaded, instance, [], undefined, [line]);
    return { job: (await tx.getJob(id)) as JobRecord, kept: planned.kept, again: planned.again };
  }

  /**
   * A delayed start: the first decision is triggered at `startAt` (the time its waits'
   * durations count from) and its message is not claimable before then, whether or not
   * this process has the workflow's code.
   */
  private async delayFirstDecision(
    tx: StoreTx,
    job: JobRecord,
    loaded: LoadedInstance,
    instance: Instance,
    startAt: number,
    line: NewHistoryEntry,
  ): Promise<void> {
    const triggered = tryTriggerDecision(instance, { now: startAt, uuid: randomUUID() });
    if (triggered.request) {
      await tx.append([
        {
          stream: decisionStream(instance.workflow_name),
          job: job.id,
          payload: { k: 'decide', job: job.id, uuid: triggered.request.uuid },
          availableAt: startAt,
        },
      ]);
    }
    await this.save(tx, job, loaded, triggered.instance, [line]);
  }

  /**
   * Gives an instance that has not run its first decision new arguments (a debounced
   * start's later input); false when it ended or has decided already.
   */
  async replaceInput(tx: StoreTx, jobId: string, input: Json[]): Promise<boolean> {
    const locked = await this.lock(tx, jobId);
    const instance = locked?.instance;
    if (!locked || !instance) return false;
    // The input is the `handle` action's, buffered until a decision is triggered, then
    // its branch's, until the first decision is applied.
    const begun = instance.decision_current_index > 0 || instance.statuses.length > 0;
    if (begun) return false;
    const buffer = instance.buffer.map((b) =>
      b.type === 'handle' ? { ...b, data: { ...b.data, input } } : b,
    );
    const branches = instance.branches.map((b) => (b.type === 'handle' ? { ...b, input } : b));
    await this.save(tx, locked.job, locked.loaded, { ...instance, buffer, branches });
    return true;
  }

  /** Runs one message of the durable or a decision stream. */
  async handle(tx: StoreTx, message: DurableMessage): Promise<void> {
    if (message.k === 'action') return this.act(tx, message.job, message.action);
    if (message.k === 'control') return this.control(tx, message.job, message.op);
    if (message.k === 'deadline') return this.timeOut(tx, message);
    return this.decide(tx, message.job, message.uuid);
  }

  /**
   * Delivers several actions (a worker's task starts, or its task results), each to its
   * instance, in their order, as one batch (instance-batch.ts): their jobs locked in one
   * statement, their semaphores read in one, each action planned in memory as {@link act}
   * plans it alone, and what they write applied at the end, one statement per table.
   */
  async actBatch(
    tx: StoreTx,
    items: readonly { job: string; action: Action }[],
    /**
     * The caller calls {@link settle} on `tx` before it commits: the batch's journal and job
     * rows stay buffered until then, so a next call on `tx` (the starts of the tasks these
     * results scheduled) adds to the same unit.
     */
    hold = false,
  ): Promise<void> {
    const held = this.held.get(tx);
    if (items.length === 0 && !held) return;
    const semaphores = items.flatMap(({ job, action }) =>
      action.type === 'onSuccess' || action.type === 'onFailure'
        ? [semaphoreRef(job, action.uuid)]
        : action.type === 'revertResult'
          ? [semaphoreRef(job, action.uuid, REVERT_SEMAPHORE)]
          : [],
    );
    const jobs = items.map((i) => i.job);
    const batch = held ?? (await InstanceBatch.open(tx, jobs, semaphores));
    this.held.delete(tx);
    if (held) await held.include(jobs, semaphores);
    // The instances the cache does not hold, read at once (no buffered write touches them).
    else await primeInstances(tx, batch.locked, this.cache);
    for (const { job, action } of items) await this.act(batch.tx, job, action);
    if (!hold) return batch.flush();
    await batch.flush({ keepRows: true });
    this.held.set(tx, batch);
  }

  /** Writes what a held batch on `tx` (see {@link actBatch}) still keeps; nothing when none. */
  async settle(tx: StoreTx): Promise<void> {
    const held = this.held.get(tx);
    if (!held) return;
    this.held.delete(tx);
    await held.flush();
  }

  /**
   * Delivers an action to an instance. A wait's timer that fires while the job is
   * suspended is parked with the job's other work, and delivered when it resumes.
   */
  async act(tx: StoreTx, jobId: string, action: Action): Promise<void> {
    const locking = this.lock(tx, jobId);
    // A result's semaphore is read behind the lock, in the same round trip.
    const semaphore =
      action.type === 'onSuccess' || action.type === 'onFailure'
        ? new Issued().add(tx.getCounter(semaphoreRef(jobId, action.uuid)))
        : undefined;
    const locked = await locking;
    if (!locked) {
      // The instance ended: a work it did not wait for may still report (late-results.ts).
      if (isLateAction(action)) await this.actAfterEnd(tx, jobId, action);
      return;
    }
    const { job, loaded, instance } = locked;
    if (action.type === 'waitElapsed' && startsNothing(job.state)) {
      await this.park(tx, jobId, { k: 'action', job: jobId, action });
      return;
    }
    if (action.type === 'revertResult') {
      if (!(await this.recordResult(tx, jobId, action.uuid, REVERT_SEMAPHORE))) return;
      const now = this.clock.now();
      const { instance: next, effects } = receiveRevertResult(instance, action, now);
      await this.advance(tx, job, loaded, next, effects, undefined, [
        actionLine(instance, action, now),
      ]);
      return;
    }
    const now = this.clock.now();
    let delivered = action;
    if (action.type === 'onFailure' && action.attempt !== undefined) {
      // A failed attempt: retried by the task's policy, or final.
      const random = () => this.values.random();
      const plan = planTaskRetry(instance, { ...action, attempt: action.attempt }, now, random);
      if (plan.kind === 'stale') return;
      if (plan.kind === 'retry') {
        await tx.append([plan.message]);
        const line = retryLine(instance, action, plan.attempt, plan.delayMs, now);
        const told = timedOut(plan.instance, action, now);
        await this.advance(tx, job, loaded, told.instance, told.effects, undefined, [
          line,
          ...told.lines,
        ]);
        return;
      }
      delivered = { ...action, error: plan.error };
    }
    let lines: NewHistoryEntry[] = [];
    let current = instance;
    let effects: Effect[] = [];
    if (delivered.type === 'onSuccess' || delivered.type === 'onFailure') {
      if (!(await this.recordResult(tx, jobId, delivered.uuid, 'sem', semaphore))) return;
      // Only a task with a schedule-to-close timeout has a timer to cancel.
      const status = instance.statuses[statusIndexOf(instance.statuses, delivered.uuid)];
      if (status?.deadline !== undefined) {
        await tx.cancelTimer(workDeadlineTimerKey(jobId, delivered.uuid));
      }
      if (delivered.type === 'onFailure')
        ({ instance: current, effects, lines } = timedOut(instance, delivered, now));
    }
    const received = receiveAction(current, delivered, now);
    await this.advance(
      tx,
      job,
      loaded,
      received.instance,
      [...effects, ...received.effects],
      undefined,
      [...lines, actionLine(instance, delivered, now)],
    );
  }

  /**
   * Ends an instance whose job's deadline passed, at once, in FAILURE
   * (`instance-timeout.ts`): its scheduled works failed, its child jobs told to end too,
   * its task messages deleted, its parent told. A suspended job keeps the message parked
   * until it resumes; an instance that has ended drops it.
   */
  async timeOut(tx: StoreTx, message: DeadlineMessage): Promise<void> {
    const locked = await this.lock(tx, message.job);
    if (!locked) return;
    const { job, loaded, instance } = locked;
    if (startsNothing(job.state)) {
      await this.park(tx, job.id, message);
      return;
    }
    const now = this.clock.now();
    const cut = scheduledWorks(instance);
    const error = jobTimeoutRecord(message, cut, instance.error);
    const failed = failByTimeout(instance, error, now);
    await this.perform(tx, job, failed.effects);
    await this.save(tx, job, loaded, failed.instance);
    const children = await runningChildren(tx, job.id);
    if (children.length > 0) {
      await tx.append(
        children.map((child) => ({
          stream: DURABLE_STREAM,
          job: child,
          payload: childDeadline(message, child) as unknown as Json,
        })),
      );
    }
    await this.writeHistory(tx, [
      deadlineLine(job.id, message, cut, now),
      stateLine(job.id, 'end', 'FAILURE', error, now),
    ]);
    await dropJobWork(tx, job.id);
  }

  /** Keeps a message of a suspended job parked until it resumes. */
  private async park(tx: StoreTx, job: string, message: DurableMessage): Promise<void> {
    const payload = message as unknown as Json;
    await tx.append([parked(job, { stream: DURABLE_STREAM, payload })]);
  }

  /**
   * Records a work's start or result on an instance that has ended, closing its Leg2 as
   * a result always does; the job keeps its state, and its history gets the action's
   * line marked `afterEnd`.
   */
  private async actAfterEnd(tx: StoreTx, jobId: string, action: LateAction): Promise<void> {
    const job = await tx.lockJob(jobId);
    if (job?.model !== 'durable') return;
    const loaded = await loadInstance(tx, job, this.cache);
    if (!loaded) return;
    const now = this.clock.now();
    const next = recordLateAction(loaded.instance, action, now);
    if (!next) return;
    if (action.type !== 'onStart') {
      if (!(await this.recordResult(tx, jobId, action.uuid))) return;
      await tx.cancelTimer(`dto:${jobId}:${action.uuid}`);
    }
    await this.save(tx, job, loaded, next);
    await this.writeHistory(tx, [actionLine(loaded.instance, action, now, true)]);
  }

  /** Pauses, resumes or terminates an instance. */
  async control(tx: StoreTx, jobId: string, op: 'pause' | 'resume' | 'terminate'): Promise<void> {
    const locked = await this.lock(tx, jobId);
    if (!locked) return;
    const now = this.clock.now();
    const change =
      op === 'pause' ? pauseInstance : op === 'resume' ? resumeInstance : terminateInstance;
    const { instance, effects } = change(locked.instance, now);
    await this.advance(tx, locked.job, locked.loaded, instance, effects, undefined, [
      controlLine(jobId, op, now),
    ]);
  }

  /** Runs the decision in flight, when it is still `uuid` and this process has the code. */
  async decide(tx: StoreTx, jobId: string, uuid: string): Promise<void> {
    const locked = await this.lock(tx, jobId);
    if (!locked || locked.instance.decision_uuid !== uuid) return;
    const definition = this.workflows.get(locked.instance.workflow_name);
    if (!definition) {
      throw new ValidationError(
        `this process has no code for workflow ${locked.instance.workflow_name}`,
        `decision ${uuid}`,
      );
    }
    await this.advance(tx, locked.job, locked.loaded, locked.instance, [], definition);
  }

  /**
   * Applies a decision computed outside this process (an HTTP agent's
   * {@link DecisionSession}): when `outcome.uuid` is still the instance's decision in
   * flight, records its decisions, performs their effects and triggers the next decision,
   * as a decision run here would. Returns false, changing nothing, when the instance has
   * moved on (another uuid, ended, not code-first).
   */
  async applyOutcome(tx: StoreTx, jobId: string, outcome: DecisionOutcome): Promise<boolean> {
    const locked = await this.lock(tx, jobId);
    if (!locked?.instance.decision_ongoing || locked.instance.decision_uuid !== outcome.uuid) {
      return false;
    }
    const now = this.clock.now();
    const applied = applyDecisions(settledAsIs(locked.instance), outcome, now);
    await this.advance(
      tx,
      locked.job,
      locked.loaded,
      applied.instance,
      applied.effects,
      undefined,
      [decisionLine(jobId, outcome.uuid, applied.effects, now, applied.instance.executions.length)],
    );
    return true;
  }

  /**
   * Hands the decision in flight `uuid` out again under a new uuid (its executer was
   * lost): saves the instance and appends a `decide` message for the new uuid. Returns
   * the new uuid, or null (nothing changed) when `uuid` is no longer in flight.
   */
  async redeliver(tx: StoreTx, jobId: string, uuid: string): Promise<string | null> {
    const locked = await this.lock(tx, jobId);
    if (!locked || locked.instance.decision_uuid !== uuid) return null;
    const { instance, request } = redeliverDecision(locked.instance, {
      now: this.clock.now(),
      uuid: randomUUID(),
    });
    if (!request) return null;
    await tx.append([
      {
        stream: decisionStream(instance.workflow_name),
        job: jobId,
        payload: { k: 'decide', job: jobId, uuid: request.uuid },
      },
    ]);
    await this.save(tx, locked.job, locked.loaded, instance);
    return request.uuid;
  }

  /**
   * Fails an instance whose message was dead-lettered, at once, with `error` (its parent
   * is told). False when the instance is not running.
   */
  async endDeadLettered(tx: StoreTx, jobId: string, error: ErrorRecord): Promise<boolean> {
    const locked = await this.lock(tx, jobId);
    if (!locked) return false;
    const now = this.clock.now();
    const failed = failByDeadLetter(locked.instance, error, now);
    await this.perform(tx, locked.job, failed.effects);
    await this.save(tx, locked.job, locked.loaded, failed.instance);
    await this.writeHistory(tx, [stateLine(jobId, 'end', 'FAILURE', error, now)]);
    return true;
  }

  /**
   * Undoes {@link endDeadLettered} when dead letter `messageId` is requeued: the instance
   * back in the life it had, its job RUNNING (or SUSPENDED). False (nothing changed) when
   * the instance did not fail because of that dead letter.
   */
  async reopenDeadLettered(tx: StoreTx, jobId: string, messageId: string): Promise<boolean> {
    const job = await tx.lockJob(jobId);
    const error = job?.error;
    if (job?.state !== 'FAILURE' || job.model !== 'durable') return false;
    if (error?.code !== 'DEAD_LETTER' || error.messageId !== messageId) return false;
    const loaded = await loadInstance(tx, job, this.cache);
    if (!loaded) return false;
    const instance = reopenAfterDeadLetter(loaded.instance, this.clock.now());
    const writes = this.planWrites(jobId, loaded, instance);
    await tx.appendJournal(writes.journal);
    await tx.setJobState(jobId, 'FAILURE', 'RUNNING', {
      ...writes.patch,
      error: null,
      finishedAt: null,
    });
    await moveJobState(tx, jobId, 'RUNNING', flowStateOf(instance));
    await this.writeHistory(tx, [
      stateLine(jobId, 'reopen', flowStateOf(instance), null, this.clock.now()),
    ]);
    // Its deadline's timer was cancelled when it ended: it runs under the same deadline.
    if (instance.deadline !== undefined) {
      const limit = instance.deadline - job.createdAt;
      await tx.scheduleTimer(deadlineWrites(jobId, DURABLE_STREAM, limit, job.createdAt).timer);
    }
    return true;
  }

  /**
   * The instance of code-first job `jobId` as stored (for views and hand-outs), or null.
   * Uses the instances this runtime wrote last when they are still the stored ones.
   */
  async read(tx: StoreTx, jobId: string): Promise<Instance | null> {
    const job = await tx.getJob(jobId);
    if (!job) return null;
    return (await loadInstance(tx, job, this.cache))?.instance ?? null;
  }

  private async lock(tx: StoreTx, jobId: string) {
    const job = await tx.lockJob(jobId);
    if (!job) return undefined;
    const loaded = await loadInstance(tx, job, this.cache);
    if (loaded?.instance.state !== 'running') return undefined;
    return { job, loaded, instance: loaded.instance };
  }

  /** Plans writing `next` and remembers it as this job's latest instance. */
  private planWrites(jobId: string, loaded: LoadedInstance, next: Instance) {
    const writes = planInstanceWrites(jobId, loaded, next);
    this.cache.put(jobId, writes.loaded);
    return writes;
  }

  /**
   * Performs effects, then triggers and runs decisions while this process has the code,
   * and saves the instance and the job's state, with `lines` — what brought it here —
   * and a line per decision run (and one for the job's end) in its history.
   */
  private async advance(
    tx: StoreTx,
    job: JobRecord,
    loaded: LoadedInstance,
    start: Instance,
    effects: Effect[],
    ongoing?: WorkflowDefinition<never[], unknown>,
    lines: NewHistoryEntry[] = [],
  ): Promise<void> {
    let instance = start;
    let pending = effects;
    let definition = ongoing;
    for (;;) {
      await this.perform(tx, job, pending);
      pending = [];
      if (!definition) {
        const triggered = tryTriggerDecision(instance, {
          now: this.clock.now(),
          uuid: randomUUID(),
        });
        instance = triggered.instance;
        if (!triggered.request) break;
        definition = this.workflows.get(instance.workflow_name);
        if (!definition) {
          await tx.append([
            {
              stream: decisionStream(instance.workflow_name),
              job: job.id,
              payload: { k: 'decide', job: job.id, uuid: triggered.request.uuid },
            },
          ]);
          break;
        }
      }
      if (
        instance.properties_pending &&
        instance.deadline === undefined &&
        definition.timeoutMs !== undefined
      ) {
        const from = instance.start_at ?? job.createdAt;
        const writes = deadlineWrites(job.id, DURABLE_STREAM, definition.timeoutMs, from);
        await scheduleDeadline(tx, writes);
        instance = { ...instance, deadline: Number(writes.counter.initial) };
      }
      instance = settleInitialProperties(instance, definition);
      if (definition.onFailure === 'revert' && instance.on_failure !== 'revert') {
        instance = { ...instance, on_failure: 'revert' };
      }
      const request = currentRequest(instance);
      const outcome = await runDecision(request, definition, { values: this.values });
      const now = this.clock.now();
      const applied = applyDecisions(instance, outcome, now);
      lines.push(
        decisionLine(
          job.id,
          outcome.uuid,
          applied.effects,
          now,
          applied.instance.executions.length,
        ),
      );
      instance = applied.instance;
      pending = applied.effects;
      definition = undefined;
    }
    const state = flowStateOf(instance);
    if (isFinalFlowState(state) && job.state !== state) {
      lines.push(stateLine(job.id, 'end', state, instance.error, this.clock.now()));
    }
    await this.save(tx, job, loaded, instance, lines);
  }

  /** Writes history lines, naming this runtime's worker, in one statement. */
  private async writeHistory(tx: StoreTx, lines: NewHistoryEntry[]): Promise<void> {
    if (lines.length === 0) return;
    await tx.appendHistory(lines.map((line) => ({ ...line, worker: this.worker })));
  }

  /**
   * Stores `instance`, loaded as `loaded`: appends the journal entries for what changed,
   * writes the new head and moves the job's state (nothing when nothing changed), and
   * writes `lines` to the job's history. On the common path the three are issued together.
   */
  private async save(
    tx: StoreTx,
    job: JobRecord,
    loaded: LoadedInstance,
    instance: Instance,
    lines: NewHistoryEntry[] = [],
  ): Promise<void> {
    const target = flowStateOf(instance);
    if (instance === loaded.instance && target === job.state) {
      await this.writeHistory(tx, lines);
      return;
    }
    const writes = this.planWrites(job.id, loaded, instance);
    const issued = new Issued();
    if (writes.journal.length > 0) issued.add(tx.appendJournal(writes.journal));
    const final = isFinalFlowState(target);
    const patch = {
      ...writes.patch,
      ...(final ? { output: instance.output, error: instance.error } : {}),
      ...(target === 'SUSPENDED' ? { error: instance.error } : {}),
    };
    // Pausing and resuming go as for any job (engine/suspension.ts): SUSPENDING while a
    // task handler runs, its waiting tasks parked, SUSPENDED once none runs.
    const context = { now: this.clock.now(), worker: this.worker };
    const running = job.state === 'RUNNING' || job.state === 'SUSPENDING';
    const stopped = job.state === 'SUSPENDED' || job.state === 'SUSPENDING';
    if ((target === 'SUSPENDED' && running) || (target === 'RUNNING' && stopped)) {
      await issued.settled();
      if (Object.keys(patch).length) await tx.updateJob(job.id, patch);
      if (target === 'RUNNING') await resumeJob(tx, job, context, { line: false });
      else if (job.state === 'RUNNING') await suspendJob(tx, job, context);
      else await settleSuspending(tx, job.id, context);
      await this.writeHistory(tx, lines);
      return;
    }
    issued.add(moveJobState(tx, job.id, job.state, target, patch));
    if (final && instance.deadline !== undefined) {
      issued.add(tx.cancelTimer(deadlineTimerKey(job.id)));
    }
    issued.add(this.writeHistory(tx, lines));
    await issued.settled();
    if (final && stopped) await dropParked(tx, job.id);
  }

  /**
   * Carries out a decision's effects. Their semaphores, timers and messages do not depend
   * on each other: they are issued together and awaited once (a child's start, which
   * reads, is awaited where it comes).
   */
  private async perform(tx: StoreTx, job: JobRecord, effects: Effect[]): Promise<void> {
    const messages: NewMessage[] = [];
    const issued = new Issued();
    const action = (target: string, a: Action): NewMessage => ({
      stream: DURABLE_STREAM,
      job: target,
      payload: { k: 'action', job: target, action: a } satisfies ActionMessage as unknown as Json,
    });
    for (const effect of effects) {
      switch (effect.type) {
        case 'scheduleTask': {
          issued.add(this.scheduleWork(tx, job.id, effect.uuid));
          const { clocks } = effect;
          messages.push(taskMessage(job.id, effect.uuid, effect.name, effect.input, { clocks }));
          // Its schedule-to-close deadline ends it whatever its attempts are doing.
          if (clocks.deadline !== undefined) {
            const status = { name: effect.name, deadline: clocks.deadline } as Status;
            issued.add(
              tx.scheduleTimer({
                key: workDeadlineTimerKey(job.id, effect.uuid),
                at: clocks.deadline,
                message: action(job.id, {
                  type: 'onFailure',
                  uuid: effect.uuid,
                  error: deadlineError(status),
                  timedOut: true,
                }),
              }),
            );
          }
          break;
        }
        case 'startChild':
          await this.scheduleWork(tx, job.id, effect.uuid);
          if (
            (
              await this.start(tx, {
                id: effect.uuid,
                workflow: effect.workflow,
                input: effect.input,
                parent: { job: job.id, uuid: effect.uuid },
                ...(effect.queue && { queued: true }),
              })
            ).created &&
            effect.queue
          ) {
            // A child is never dropped by its queue's rate: it is charged, and waits.
            const now = this.clock.now();
            await enqueueStart(tx, effect.uuid, effect.queue, now, now, { drops: false });
          }
          break;
        case 'startWait':
          if (effect.at !== undefined) {
            issued.add(
              tx.scheduleTimer({
                key: `dwait:${job.id}:${effect.uuid}`,
                at: effect.at,
                message: action(job.id, { type: 'waitElapsed', uuid: effect.uuid }),
              }),
            );
          }
          break;
        case 'cancelWait':
          if (effect.timed) issued.add(tx.cancelTimer(`dwait:${job.id}:${effect.uuid}`));
          break;
        case 'sendEvent':
          messages.push(
            action(effect.instance, { type: 'onEvent', name: effect.name, data: effect.data }),
          );
          break;
        case 'finished':
        case 'failed':
        case 'terminated':
          if (job.parentId && job.parentActivity) {
            messages.push(
              action(
                job.parentId,
                effect.type === 'finished'
                  ? { type: 'onSuccess', uuid: job.parentActivity, output: effect.output }
                  : {
                      type: 'onFailure',
                      uuid: job.parentActivity,
                      error:
                        effect.type === 'failed'
                          ? effect.error
                          : { name: 'Terminated', message: `child ${job.id} was terminated` },
                    },
              ),
            );
          }
          break;
        case 'scheduleRevert': {
          issued.add(this.scheduleWork(tx, job.id, effect.uuid, REVERT_SEMAPHORE));
          messages.push(
            taskMessage(job.id, effect.uuid, effect.name, effect.input, { revert: true }),
          );
          break;
        }
        case 'reverted':
          // A parent sees a child that reverted as a failure, with the error it reverted for.
          if (job.parentId && job.parentActivity) {
            messages.push(
              action(job.parentId, {
                type: 'onFailure',
                uuid: job.parentActivity,
                error: effect.error,
              }),
            );
          }
          break;
        case 'modified':
          break;
      }
    }
    if (messages.length) issued.add(tx.append(messages));
    await issued.settled();
  }

  /** Leg1 of a work's semaphore (or its revert's), when it is scheduled. */
  private async scheduleWork(tx: StoreTx, job: string, uuid: string, field = 'sem'): Promise<void> {
    const ref = semaphoreRef(job, uuid, field);
    // Entry and exit in one add: the transaction commits their sum, never the reading between.
    const batch = batchOf(tx);
    if (batch) batch.addUnread(ref, LEG1_ENTRY + LEG1_EXIT, SEMAPHORE_INITIAL);
    else await tx.addCounter(ref, LEG1_ENTRY + LEG1_EXIT, SEMAPHORE_INITIAL);
  }

  /** Leg2 of a work's semaphore, when its result arrives; false for a result already recorded. */
  private async recordResult(
    tx: StoreTx,
    job: string,
    uuid: string,
    field = 'sem',
    read: Promise<bigint | undefined> = tx.getCounter(semaphoreRef(job, uuid, field)),
  ): Promise<boolean> {
    const ref = semaphoreRef(job, uuid, field);
    if ((await read) === undefined) return true;
    // Entry and final exit in one add; the entry's reading (the sum less the exit) decides,
    // and a Leg2 already closed takes both back. The transaction commits the sum, never the
    // reading between.
    const value = (await tx.addCounter(ref, LEG2_ENTRY + LEG2_FINAL_EXIT)) - LEG2_FINAL_EXIT;
    if (isLeg2Closed(value)) {
      await tx.addCounter(ref, -(LEG2_ENTRY + LEG2_FINAL_EXIT));
      return false;
    }
    return true;
  }
}

function currentRequest(instance: Instance) {
  const request = currentDecisionRequest(instance);
  if (!request) throw new NotFoundError('decision', instance.id);
  return request;
}

/** The counter holding the semaphore of a work (`sem`) or of its revert. */
function semaphoreRef(job: string, uuid: string, field = 'sem') {
  return { job, activity: uuid, field };
}

/** The key of a code-first task's schedule-to-close timer. */
function workDeadlineTimerKey(job: string, uuid: string): string {
  return `dsc:${job}:${uuid}`;
}

/**
 * A failed attempt that timed out is also an `onTimeout` for the instance (its
 * `onTimeout` branch runs), delivered before the failure or the retry is recorded.
 */
function timedOut(
  instance: Instance,
  action: FailureAction,
  now: number,
): { instance: Instance; effects: Effect[]; lines: NewHistoryEntry[] } {
  if (!action.timedOut) return { instance, effects: [], lines: [] };
  const timeout: Action = { type: 'onTimeout', uuid: action.uuid };
  const received = receiveAction(instance, timeout, now);
  return { ...received, lines: [actionLine(instance, timeout, now)] };
}
