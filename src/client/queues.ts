/**
 * `client.queues`: create (or update), list with what runs and waits in each, and delete
 * queues; and the part of a start that puts its job in one (`enqueueStart`). Workers
 * admit waiting jobs as slots free (store/queue-admission.ts).
 */
import type { Clock } from '../core/clock.js';
import { NotFoundError, ValidationError } from '../core/errors.js';
import type { WorkflowDefinition } from '../durable/definitions.js';
import type { CompiledWorkflow } from '../graph/compiled-workflow.js';
import {
  type CheckedQueue,
  checkQueue,
  declareQueue,
  type QueueDeclareStatus,
  type QueueDefinition,
  type QueueSpec,
} from '../models/queue-spec.js';
import { retryingConflicts } from '../store/conflict-retry.js';
import type { DefinitionRecord, Json, QueueKeyCount, QueueRecord } from '../store/records.js';
import type { Store } from '../store/store.js';

/** A queue with what runs and waits in it now. */
export interface QueueView extends QueueRecord {
  /** Jobs admitted (holding a slot). */
  running: number;
  /** Jobs waiting for a slot. */
  waiting: number;
  /** Attempts of tasks that name the queue, running (claimed through it, lease live). */
  attempts: number;
  /** Per key (the key `''` for jobs started with none), busiest first. */
  keys: {
    key: string;
    running: number;
    waiting: number;
    oldestWaiting: number | null;
    attempts: number;
  }[];
}

/** What `create` did. */
export interface CreatedQueue extends QueueRecord {
  status: QueueDeclareStatus;
}

/** Where a start puts its job: `Client.start`'s `queue`, `key` and `priority`. */
export interface QueueStartOptions {
  /** A declared queue: the job waits for a slot of it before its first step. */
  queue?: string;
  /** Its key for the queue's per-key limit (default: none, which is one key of its own). */
  key?: string;
  /** Lower runs first (default 0); whole numbers from -1000000 to 1000000. */
  priority?: number;
}

/**
 * The queue options a start goes by: its own when it names a queue; else its workflow
 * file's `queue:` (its key evaluated over the input, engine/queue-place.ts); else, given
 * a code-first definition, the definition's queue. A start's own key and priority win.
 * The expression language and the code-first definitions load with the first start that
 * needs them, not with the queue commands.
 */
export async function queueOfStart(
  definition: string | WorkflowDefinition<never[], unknown>,
  record: DefinitionRecord | undefined,
  input: unknown,
  options: QueueStartOptions,
  now: number,
): Promise<QueueStartOptions> {
  if (options.queue !== undefined) return options;
  const fileQueue =
    record?.model === 'graph'
      ? (record.definition as unknown as CompiledWorkflow).queue
      : undefined;
  if (fileQueue) {
    const { fileQueuePlace } = await import('../engine/queue-place.js');
    return fileQueuePlace(
      record?.workflow as string,
      fileQueue,
      (input ?? null) as Json,
      options,
      now,
    );
  }
  const defined =
    typeof definition === 'string'
      ? undefined
      : (await import('../durable/definitions.js')).queuePlacement(
          definition,
          Array.isArray(input) ? input : [input ?? null],
        );
  if (!defined) return options;
  return {
    ...defined,
    ...(options.key !== undefined && { key: options.key }),
    ...(options.priority !== undefined && { priority: options.priority }),
  };
}

/** Checks a start's queue options against the store; the queue's record, or undefined with none. */
export async function checkQueueStart(
  store: Store,
  options: QueueStartOptions,
): Promise<QueueRecord | undefined> {
  const { queue, key, priority } = options;
  if (queue === undefined) {
    if (key !== undefined || priority !== undefined) {
      throw new ValidationError('a key or priority needs a queue', 'start');
    }
    return undefined;
  }
  const record = await store.getQueue(queue);
  if (!record) {
    throw new ValidationError(
      `queue ${JSON.stringify(queue)} is not declared: create it first (weft queue create ${queue} --concurrency N)`,
      'start',
    );
  }
  if (key !== undefined && (typeof key !== 'string' || key.length > 200)) {
    throw new ValidationError(
      `key ${JSON.stringify(key)} is not a string of at most 200 characters`,
      'start',
    );
  }
  if (priority !== undefined && (!Number.isInteger(priority) || Math.abs(priority) > 1_000_000)) {
    throw new ValidationError(
      `priority ${JSON.stringify(priority)} is not a whole number from -1000000 to 1000000`,
      'start',
    );
  }
  return record;
}

function viewOf(queue: QueueRecord, counts: readonly QueueKeyCount[]): QueueView {
  const keys = counts
    .filter((c) => c.queue === queue.name)
    .map(({ key, running, waiting, oldestWaiting, attempts }) => ({
      key,
      running,
      waiting,
      oldestWaiting,
      attempts: attempts ?? 0,
    }))
    .sort(
      (a, b) =>
        b.running + b.waiting + b.attempts - (a.running + a.waiting + a.attempts) ||
        (a.key < b.key ? -1 : 1),
    );
  return {
    ...queue,
    running: keys.reduce((n, k) => n + k.running, 0),
    waiting: keys.reduce((n, k) => n + k.waiting, 0),
    attempts: keys.reduce((n, k) => n + k.attempts, 0),
    keys,
  };
}

/** The queue operations of a {@link Client}. */
export class Queues {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  /** Creates a queue, or updates the limits of the one of that name. */
  async create(spec: QueueSpec | QueueDefinition, source = 'api'): Promise<CreatedQueue> {
    const checked: CheckedQueue = 'kind' in spec ? spec : checkQueue(spec);
    const { queue, status } = await retryingConflicts(() =>
      this.store.transaction((tx) => declareQueue(tx, checked, this.clock.now(), source)),
    );
    return { ...queue, status };
  }

  /** Every queue with what runs and waits in it, by name. */
  async list(): Promise<QueueView[]> {
    const [queues, counts] = await Promise.all([this.store.listQueues(), this.store.queueCounts()]);
    return queues.map((q) => viewOf(q, counts));
  }

  /** One queue; a NotFoundError when there is none. */
  async get(name: string): Promise<QueueView> {
    const queue = await this.store.getQueue(name);
    if (!queue) throw new NotFoundError('queue', name);
    return viewOf(queue, await this.store.queueCounts());
  }

  /** Deletes a queue; jobs waiting in it are then admitted with no limit. */
  async delete(name: string): Promise<void> {
    if (!(await this.store.deleteQueue(name))) throw new NotFoundError('queue', name);
  }
}
