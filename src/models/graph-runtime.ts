/**
 * Graph workflows (a file or the builder) as a {@link ModelRuntime}: the graph interpreter
 * of engine/ runs the `engine` stream in batches and records task results set-based
 * (`GraphEngine.respondBatch`); a job starts from its deployed, compiled definition.
 */
import { createHash } from 'node:crypto';
import { NotFoundError } from '../core/errors.js';
import { sharedSandbox } from '../engine/expression-sandbox.js';
import type { GraphEngine } from '../engine/graph-engine.js';
import { stateEntry } from '../engine/history.js';
import { deadlineTimerKey, dropJobWork } from '../engine/job-deadline.js';
import type { CompiledWorkflow } from '../engine/kinds/index.js';
import { loadWorkflow } from '../engine/loaded-workflow.js';
import {
  ENGINE_STREAM,
  type EngineMessage,
  type TaskMessage,
  type TaskResponse,
} from '../engine/messages.js';
import { startGraphJob } from '../engine/start-job.js';
import { isCheapInputSchema, validateJobInput } from '../graph/job-input.js';
import type { DeadLetter, ErrorRecord, JobRecord, Json } from '../store/records.js';
import type { StoreTx } from '../store/store.js';
import { graphView } from './graph-view.js';
import type {
  AgentTask,
  ModelRoute,
  ModelRuntime,
  ModelView,
  StartRequest,
  ViewContext,
} from './model-runtime.js';

/** Graph jobs, on a {@link GraphEngine}. */
export class GraphRuntime implements ModelRuntime {
  readonly model = 'graph' as const;
  readonly routes: readonly ModelRoute[];

  constructor(private readonly engine: GraphEngine) {
    this.routes = [
      {
        stream: ENGINE_STREAM,
        handle: async (tx, payload) => {
          await this.engine.handle(tx, payload as unknown as EngineMessage);
        },
        handleBatch: async (tx, payloads) => {
          await this.engine.handleBatch(tx, payloads as unknown as EngineMessage[]);
        },
      },
    ];
  }

  /** Graph workflows are deployed, not announced by the processes that run them. */
  async announce(): Promise<void> {}

  /**
   * Checks the input against the workflow's schema (a ValidationError): here when the
   * schema is provably cheap to check, else in the expression sandbox, under its limits.
   */
  async check(request: StartRequest): Promise<void> {
    if (!request.definition) throw new NotFoundError('workflow', request.workflow);
    const compiled = request.definition.definition as unknown as CompiledWorkflow;
    const schema = compiled.inputSchema;
    if (schema === undefined) return;
    if (isCheapInputSchema(schema)) validateJobInput(compiled, request.input);
    else {
      await sharedSandbox().checkInput(compiled.workflow, compiled.version, schema, request.input);
    }
  }

  /** Starts the job; its input was checked by {@link check}, before the transaction. */
  async start(tx: StoreTx, request: StartRequest): Promise<{ job: JobRecord; created: boolean }> {
    if (!request.definition) throw new NotFoundError('workflow', request.workflow);
    const compiled = request.definition.definition as unknown as CompiledWorkflow;
    return startGraphJob(tx, {
      id: request.id,
      wf: loadWorkflow(compiled),
      input: request.input,
      now: this.engine.clock.now(),
      ...(request.timeoutMs !== undefined && { timeoutMs: request.timeoutMs }),
      ...(request.startAt !== undefined && { startAt: request.startAt }),
    });
  }

  /** The trigger reads the job's input when it runs, so the job's record is all there is to change. */
  async replaceInput(tx: StoreTx, job: JobRecord, input: Json): Promise<boolean> {
    if (job.state !== 'RUNNING') return false;
    await tx.setJobInput(job.id, input);
    return true;
  }

  /** Every response as one unit: the jobs locked once, one set-based write. */
  async taskResults(tx: StoreTx, responses: readonly TaskResponse[]): Promise<void> {
    await this.engine.respondBatch(tx, responses);
  }

  /** One hand-out of one attempt; the hash names the activity's task. */
  async agentTask(_tx: StoreTx, task: TaskMessage): Promise<AgentTask> {
    const identity = JSON.stringify([task.task, task.job, task.a, task.d]);
    return {
      uuid: `${task.job}:${task.a}:${task.d}:${task.attempt}`,
      hash: createHash('sha256').update(identity).digest('hex').slice(0, 32),
    };
  }

  /** Ends the job in FAILURE with a Cancelled error; its child jobs are cancelled after it. */
  async cancel(tx: StoreTx, job: JobRecord): Promise<string[]> {
    const error = { name: 'Cancelled', code: 'CANCELLED', message: `job ${job.id} was cancelled` };
    const now = this.engine.clock.now();
    // The state move holds the job's row, so its history line cannot race a step's. A
    // suspended job leaves SUSPENDED only for RUNNING: it ends through it.
    let from = job.state;
    if (from === 'SUSPENDED' && (await tx.setJobState(job.id, 'SUSPENDED', 'RUNNING'))) {
      from = 'RUNNING';
    }
    if (await tx.setJobState(job.id, from, 'FAILURE', { error, finishedAt: now })) {
      await tx.appendHistory([stateEntry(job.id, 'cancel', 'FAILURE', error, now)]);
      // Its work goes with it, as with a job timeout: waiting and parked tasks never run,
      // a running handler loses its lease and is aborted, and its result is refused.
      await dropJobWork(tx, job.id);
      await tx.cancelTimer(deadlineTimerKey(job.id));
    }
    return (await tx.listJobs({ parentId: job.id, limit: 1000 })).map((child) => child.id);
  }

  view(tx: StoreTx, job: JobRecord, context: ViewContext): Promise<ModelView> {
    return graphView(tx, this.engine, job, context);
  }

  endDeadLettered(
    tx: StoreTx,
    job: string,
    dead: DeadLetter,
    error: ErrorRecord,
  ): Promise<boolean> {
    return this.engine.endDeadLettered(tx, job, dead.payload, error);
  }

  reopenDeadLettered(tx: StoreTx, job: string, dead: DeadLetter): Promise<boolean> {
    return this.engine.reopenDeadLettered(tx, job, dead.payload, dead.id);
  }
}
