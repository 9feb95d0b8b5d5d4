/**
 * Tasks handed out to HTTP agents (the seed's "Task jobs"). Claiming a `task:<name>`
 * message takes a lease on it and, for a code-first work, reports `onStart` to its
 * instance in the same transaction. `POST /tasks/{uuid}` acks the message and records
 * the result in one transaction: `onSuccess` / `onFailure` for a code-first work, Leg2
 * of the activity for a graph task. A task whose lease runs out before its result comes
 * is handed out again (under the same uuid); the first result recorded wins.
 */
import { InvalidStateError, LeaseLostError, NotFoundError } from '../core/errors.js';
import type { TaskMessage, TaskResponse } from '../engine/messages.js';
import { idempotencyKey } from '../engine/task-context.js';
import { recordAttemptStarts } from '../models/attempt-starts.js';
import type { AgentTask } from '../models/model-runtime.js';
import type { Json, StreamMessage } from '../store/records.js';
import type { StoreTx } from '../store/store.js';
import {
  type BurySettings,
  buryIn,
  endDeadLetteredJob,
  isOverdue,
} from '../worker/dead-letters.js';
import { resumeTakenOver } from '../worker/resumption.js';
import { admitClaimed } from '../worker/suspended-claims.js';
import { logWarning, stderrLogger } from '../worker/worker-options.js';
import type { WireTaskResult } from './agent-wire.js';
import type { DeskSettings } from './desk-settings.js';
import { RecentMap } from './recent-map.js';

/** What the job endpoint answers for a task. */
export interface TaskOffer {
  action: 'TaskScheduled';
  /** The work's uuid (code-first), or `<job>:<activity>:<dimension>:<attempt>` (graph). */
  uuid: string;
  /** The task's name. */
  name: string;
  input: Json;
  /** The work's hash (code-first: the one in the instance's `statuses`). */
  hash: string;
  /** (weft) the job the task belongs to, and which attempt this is (1 for the first). */
  job: string;
  attempt: number;
  /**
   * (weft) `<job>:<activity>:<dimension>`: the same on every attempt of the activity
   * (unlike `uuid`, which names one hand-out); key side effects with it.
   */
  idempotencyKey: string;
  /** (weft) a graph task's per-attempt timeout, when it has one. */
  timeoutMs?: number;
  /**
   * (weft) the job's W3C trace context, when it was started in one (docs/tracing.md):
   * an agent that traces makes its spans children of `traceparent`.
   */
  traceparent?: string;
  tracestate?: string;
}

/** How a hand-out ended: its result recorded, or its lease lost. */
type Reported = WireTaskResult['status'] | 'lost';

interface Handout {
  uuid: string;
  stream: string;
  messageId: string;
  task: TaskMessage;
}

/** The tasks this server has handed out. */
export class TaskDesk {
  private readonly open = new Map<string, Handout>();
  private readonly reported: RecentMap<string, Reported>;

  constructor(private readonly settings: DeskSettings) {
    this.reported = new RecentMap(settings.remember);
  }

  /** Tasks handed out and not reported. */
  get openCount(): number {
    return this.open.size;
  }

  /** Claims the next task of a `task:<name>` stream, or null when there is none. */
  async claim(stream: string): Promise<TaskOffer | null> {
    const { store, consumer, leaseMs, models } = this.settings;
    const bury: BurySettings = {
      ...this.settings,
      logger: this.settings.logger ?? stderrLogger,
      onDeadLetter: (tx, dead) => endDeadLetteredJob(tx, models, dead),
    };
    const claimed = await store.transaction(async (tx) => {
      for (;;) {
        const [message] = await tx.claim(stream, { consumer, max: 1, leaseMs });
        if (!message) return null;
        // Handed out maxDeliveries times already: dead-lettered, and its job ends FAILURE.
        if (isOverdue(bury, message)) {
          await buryIn(tx, bury, message);
          continue;
        }
        // Taken over from a holder whose lease ran out: its job resumes. A suspended
        // job's task is parked, not handed out.
        const now = this.settings.clock.now();
        await resumeTakenOver(tx, [message], consumer, now);
        if ((await admitClaimed(tx, [message], consumer, now)).length === 0) continue;
        return { message, ...(await this.started(tx, message)) };
      }
    });
    if (!claimed) return null;
    const task = claimed.message.payload as unknown as TaskMessage;
    const { uuid } = claimed;
    this.open.set(uuid, { uuid, stream, messageId: claimed.message.id, task });
    this.reported.delete(uuid);
    return {
      action: 'TaskScheduled',
      uuid,
      name: task.task,
      input: task.input,
      hash: claimed.hash,
      job: task.job,
      attempt: task.attempt,
      idempotencyKey: idempotencyKey(task),
      ...(task.timeoutMs !== undefined ? { timeoutMs: task.timeoutMs } : {}),
      ...(task.trace && { traceparent: task.trace.traceparent }),
      ...(task.trace?.tracestate && { tracestate: task.trace.tracestate }),
    };
  }

  /** Tells the task's model it started (a code-first work's onStart); how to hand it out. */
  private async started(tx: StoreTx, message: StreamMessage): Promise<AgentTask> {
    const task = message.payload as unknown as TaskMessage;
    const model = this.settings.models.ofTask(task);
    await recordAttemptStarts(tx, [task], this.settings.clock.now(), this.settings.consumer);
    await model.tasksStarted?.(tx, [task]);
    return model.agentTask(tx, task);
  }

  /** `POST /tasks/{uuid}`: acks the task and records its result, in one transaction. */
  async report(uuid: string, result: WireTaskResult): Promise<{ status: 'recorded' }> {
    const handout = this.held(uuid);
    const { store, consumer, models } = this.settings;
    try {
      await store.transaction(async (tx) => {
        if (!(await tx.ack(handout.stream, handout.messageId, consumer))) {
          throw new LeaseLostError(handout.stream, handout.messageId, consumer);
        }
        const { task } = handout;
        const response: TaskResponse = {
          job: task.job,
          a: task.a,
          d: task.d,
          attempt: task.attempt,
          ...(task.model ? { model: task.model } : {}),
          ...(task.revert ? { revert: true as const } : {}),
          ...(result.status === 'completed'
            ? { status: 'success', output: result.output }
            : { status: 'error', error: result.error }),
        };
        await models.ofTask(task).taskResults(tx, [response]);
      });
    } catch (error) {
      if (error instanceof LeaseLostError) this.forget(uuid, 'lost');
      throw error;
    }
    this.forget(uuid, result.status);
    if (result.status === 'failed' && this.settings.logger) {
      const { task } = handout;
      logWarning(
        this.settings.logger,
        `task ${task.task} failed (job ${task.job}, activity ${task.a}, attempt ${task.attempt})`,
        result.error,
        { task: task.task, job: task.job, activity: task.a, attempt: task.attempt },
      );
    }
    return { status: 'recorded' };
  }

  /** `POST /tasks/{uuid}/heartbeat`: extends the task's lease. */
  async heartbeat(uuid: string): Promise<{ leaseMs: number }> {
    const handout = this.held(uuid);
    const { store, consumer, leaseMs } = this.settings;
    const held = await store.extendLease(handout.stream, [handout.messageId], consumer, leaseMs);
    if (held.length === 0) {
      this.forget(uuid, 'lost');
      throw new LeaseLostError(handout.stream, handout.messageId, consumer);
    }
    return { leaseMs };
  }

  private held(uuid: string): Handout {
    const handout = this.open.get(uuid);
    if (handout) return handout;
    const reported = this.reported.get(uuid);
    if (reported) {
      throw new InvalidStateError(
        `agent task ${uuid}`,
        reported === 'lost' ? 'lease lost' : reported,
        'reported',
        'its result is already recorded, or its lease was lost',
      );
    }
    throw new NotFoundError('task', uuid);
  }

  private forget(uuid: string, status: Reported): void {
    this.open.delete(uuid);
    if (status !== 'lost' || !this.reported.get(uuid)) this.reported.set(uuid, status);
  }
}
