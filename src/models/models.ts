/**
 * The one place that picks the runtime of a model: for a job (its `model`), a stored
 * definition, a task message or response (its `model`, graph when absent), and a dead
 * letter (its stream and payload). Worker, server and client hold one `Models` over the
 * engines of their process and never branch on the model themselves.
 */
import { NotFoundError } from '../core/errors.js';
import type { DurableEngine } from '../durable/durable-engine.js';
import { DURABLE_STREAM, decisionStream } from '../durable/durable-messages.js';
import type { GraphEngine } from '../engine/graph-engine.js';
import type { TaskMessage, TaskResponse } from '../engine/messages.js';
import type { DeadLetter, DefinitionRecord, JobModel, JobRecord } from '../store/records.js';
import type { StoreTx } from '../store/store.js';
import { DurableRuntime } from './durable-runtime.js';
import { GraphRuntime } from './graph-runtime.js';
import type { ModelRuntime } from './model-runtime.js';

/** The engines of one process. */
export interface ModelEngines {
  graph: GraphEngine;
  durable: DurableEngine;
}

/** A task message or response: which model's work it is (graph when absent). */
type OfModel = { model?: JobModel | undefined };

/** Each model's runtime, over one process's engines. */
export class Models {
  readonly graph: GraphEngine;
  readonly durable: DurableEngine;
  private readonly table: Readonly<Record<JobModel, ModelRuntime>>;

  constructor(engines: ModelEngines) {
    this.graph = engines.graph;
    this.durable = engines.durable;
    this.table = {
      graph: new GraphRuntime(engines.graph),
      durable: new DurableRuntime(engines.durable),
    };
  }

  /** Every runtime, graph first. */
  get all(): readonly ModelRuntime[] {
    return Object.values(this.table);
  }

  /** The runtime of a model; `NotFoundError` for a model this version does not know. */
  of(model: JobModel): ModelRuntime {
    const runtime = Object.hasOwn(this.table, model) ? this.table[model] : undefined;
    if (!runtime) throw new NotFoundError('job model', model);
    return runtime;
  }

  /** The runtime of a job. */
  ofJob(job: Pick<JobRecord, 'model'>): ModelRuntime {
    return this.of(job.model);
  }

  /**
   * The runtime that starts a workflow stored as `definition`; with none stored, the
   * workflow is taken for a code-first one no process has registered yet.
   */
  ofDefinition(definition: Pick<DefinitionRecord, 'model'> | undefined): ModelRuntime {
    return this.of(definition?.model ?? 'durable');
  }

  /** The runtime of a task message or response. */
  ofTask(task: OfModel): ModelRuntime {
    return this.of(task.model ?? 'graph');
  }

  /** The runtime whose message became dead letter `dead`. */
  ofDeadLetter(dead: Pick<DeadLetter, 'stream' | 'payload'>): ModelRuntime {
    const model = (dead.payload as { model?: unknown } | null)?.model;
    const codeFirst =
      dead.stream === DURABLE_STREAM ||
      dead.stream.startsWith(decisionStream('')) ||
      model === 'durable';
    return this.of(codeFirst ? 'durable' : 'graph');
  }

  /** The tasks whose runtimes are told when they start (others need no transaction). */
  toldOfStart(tasks: readonly TaskMessage[]): TaskMessage[] {
    return tasks.filter((t) => this.ofTask(t).tasksStarted !== undefined);
  }

  /** Tells each task's runtime that it started. */
  async tasksStarted(tx: StoreTx, tasks: readonly TaskMessage[]): Promise<void> {
    for (const [runtime, group] of this.byRuntime(tasks)) await runtime.tasksStarted?.(tx, group);
  }

  /** Records task results: each runtime's as one group, graph first. */
  async taskResults(tx: StoreTx, responses: readonly TaskResponse[], hold = false): Promise<void> {
    for (const [runtime, group] of this.byRuntime(responses)) {
      await runtime.taskResults(tx, group, hold);
    }
  }

  /** Writes what each runtime kept from `taskResults` with `hold` (before `tx` commits). */
  async settle(tx: StoreTx): Promise<void> {
    for (const runtime of this.all) await runtime.settle?.(tx);
  }

  /** Tasks or responses grouped by runtime, in the table's order, each group in its order. */
  private byRuntime<T extends OfModel>(items: readonly T[]): [ModelRuntime, T[]][] {
    const groups = new Map<ModelRuntime, T[]>(this.all.map((r) => [r, []]));
    for (const item of items) groups.get(this.ofTask(item))?.push(item);
    return [...groups].filter(([, group]) => group.length > 0);
  }
}
