/**
 * Code-first workflows as a {@link ModelRuntime}: the runtime of durable/ runs instance
 * actions and control requests (`durable`) and the decisions of the workflows this
 * process has the code of (`decide:<workflow>`). A task's start, success and failure
 * are actions delivered to its instance (`onStart`, `onSuccess`, `onFailure`).
 */
import type { Action } from '../durable/actions.js';
import type { DurableEngine } from '../durable/durable-engine.js';
import {
  DURABLE_STREAM,
  type DurableMessage,
  decisionStream,
} from '../durable/durable-messages.js';
import { putCodeFirstDefinition } from '../durable/stored-definition.js';
import { readInstance } from '../durable/stored-instance.js';
import { dropJobWork } from '../engine/job-deadline.js';
import type { TaskMessage, TaskResponse } from '../engine/messages.js';
import type { DeadLetter, ErrorRecord, JobRecord, Json } from '../store/records.js';
import type { Store, StoreTx } from '../store/store.js';
import { durableView } from './durable-view.js';
import type {
  AgentTask,
  ModelRoute,
  ModelRuntime,
  ModelView,
  StartRequest,
  ViewContext,
} from './model-runtime.js';

/** Code-first jobs, on a {@link DurableEngine}. */
export class DurableRuntime implements ModelRuntime {
  readonly model = 'durable' as const;
  readonly routes: readonly ModelRoute[];

  constructor(private readonly engine: DurableEngine) {
    const handle = (tx: StoreTx, payload: Json) =>
      this.engine.handle(tx, payload as unknown as DurableMessage);
    this.routes = [
      { stream: DURABLE_STREAM, handle },
      ...engine.workflowNames.map((name) => ({ stream: decisionStream(name), handle })),
    ];
  }

  /** Stores the workflows this process has the code of, by name, so clients can start them. */
  async announce(store: Store): Promise<void> {
    for (const name of this.engine.workflowNames) await putCodeFirstDefinition(store, name);
  }

  /** `handle` gets the input as its arguments when it is an array, else as its one argument. */
  async start(tx: StoreTx, request: StartRequest): Promise<{ job: JobRecord; created: boolean }> {
    const args = Array.isArray(request.input) ? request.input : [request.input];
    return this.engine.start(tx, {
      id: request.id,
      workflow: request.workflow,
      input: args,
      ...(request.timeoutMs !== undefined && { timeoutMs: request.timeoutMs }),
      ...(request.startAt !== undefined && { startAt: request.startAt }),
    });
  }

  /** The instance's arguments and the job's input, as {@link start} would have written them. */
  async replaceInput(tx: StoreTx, job: JobRecord, input: Json): Promise<boolean> {
    const args = Array.isArray(input) ? input : [input];
    if (!(await this.engine.replaceInput(tx, job.id, args))) return false;
    await tx.setJobInput(job.id, args);
    return true;
  }

  /** Reports `onStart` to each task's instance, as one batch (DurableEngine.actBatch). */
  async tasksStarted(tx: StoreTx, tasks: readonly TaskMessage[]): Promise<void> {
    // A revert starting is no news to its instance: it already counts it as REVERTING.
    const started = tasks.filter((t) => !t.revert);
    await this.engine.actBatch(
      tx,
      started.map((t) => ({ job: t.job, action: { type: 'onStart', uuid: t.a } })),
    );
  }

  /**
   * Delivers `onSuccess` for a success and `onFailure` for a failure to each task's
   * instance; a failed attempt the task's retry policy retries is scheduled again instead
   * (the instance sees only the final failure). The results go as one batch
   * (DurableEngine.actBatch), each job's in their order. With `hold`, the batch's journal
   * entries and job rows wait for {@link settle}: the starts of the tasks they scheduled,
   * claimed in the same transaction, are planned into the same unit.
   */
  async taskResults(tx: StoreTx, responses: readonly TaskResponse[], hold = false): Promise<void> {
    // A progress report (`ctx.progress`) is no result: the instance waits for the last.
    const results = responses.filter((r) => r.status !== 'pending');
    await this.engine.actBatch(
      tx,
      results.map((r) => ({ job: r.job, action: actionOf(r) })),
      hold,
    );
  }

  /** Writes the rows a held batch of results (and the starts added to it) still keeps. */
  settle(tx: StoreTx): Promise<void> {
    return this.engine.settle(tx);
  }

  /** Handed out under the work's uuid, with the hash its instance recorded for it. */
  async agentTask(tx: StoreTx, task: TaskMessage): Promise<AgentTask> {
    const instance = await readInstance(tx, task.job);
    return { uuid: task.a, hash: instance?.statuses.find((s) => s.uuid === task.a)?.hash ?? '' };
  }

  /** Terminates the instance: it ends in FAILURE, its waits cancelled. */
  async cancel(tx: StoreTx, job: JobRecord): Promise<string[]> {
    await this.engine.control(tx, job.id, 'terminate');
    const ended = await tx.getJob(job.id);
    // Its work goes with it, as with a job timeout (engine/job-deadline.ts).
    if (ended?.state === 'FAILURE') await dropJobWork(tx, job.id);
    return [];
  }

  view(tx: StoreTx, job: JobRecord, context: ViewContext): Promise<ModelView> {
    return durableView(tx, job, context);
  }

  endDeadLettered(
    tx: StoreTx,
    job: string,
    _dead: DeadLetter,
    error: ErrorRecord,
  ): Promise<boolean> {
    return this.engine.endDeadLettered(tx, job, error);
  }

  reopenDeadLettered(tx: StoreTx, job: string, dead: DeadLetter): Promise<boolean> {
    return this.engine.reopenDeadLettered(tx, job, dead.id);
  }
}

/** The action a task result is to its instance. */
function actionOf(response: TaskResponse): Action {
  if (response.revert) {
    // A code-first revert is not retried: its first result is its last.
    return {
      type: 'revertResult',
      uuid: response.a,
      ...(response.status === 'error'
        ? { error: response.error ?? { name: 'Error', message: 'revert failed' } }
        : {}),
    };
  }
  return response.status === 'success'
    ? { type: 'onSuccess', uuid: response.a, output: response.output ?? null }
    : {
        type: 'onFailure',
        uuid: response.a,
        error: response.error ?? { name: 'Error', message: 'task failed' },
        // Retried by the task's policy before the instance hears of a failure.
        attempt: response.attempt,
        ...(response.timedOut ? { timedOut: true } : {}),
      };
}
