/**
 * Which task names and code-first workflows live workers serve, read from the workers'
 * heartbeats (`Store.listWorkers`), so a job's view can say when it waits on something
 * no worker has served for the presence window (30 s unless `WEFT_WORKER_WINDOW_MS`
 * says otherwise): a misspelt task name, a worker that died, a module without the task.
 */
import { ValidationError } from '../core/errors.js';
import type { WorkerPresence } from '../store/records.js';
import type { StoreTx } from '../store/store.js';

/** The environment variable that sets the presence window, in ms. */
export const PRESENCE_WINDOW_ENV = 'WEFT_WORKER_WINDOW_MS';

/** The presence window when none is set: 30 s. */
export const DEFAULT_PRESENCE_WINDOW_MS = 30_000;

/**
 * The presence window, in ms: a worker whose last heartbeat is older counts as gone, and
 * work that has waited this long on a task no live worker serves is reported. From
 * `WEFT_WORKER_WINDOW_MS` (a whole number of ms, at least 100), else 30 s.
 */
export function presenceWindowMs(env: NodeJS.ProcessEnv = process.env): number {
  const text = env[PRESENCE_WINDOW_ENV];
  if (text === undefined || text.trim() === '') return DEFAULT_PRESENCE_WINDOW_MS;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 100) {
    throw new ValidationError(
      `must be a whole number of milliseconds, at least 100, got ${JSON.stringify(text)}`,
      PRESENCE_WINDOW_ENV,
    );
  }
  return value;
}

/** `30 s`, `2.5 s`: a window in words. */
export function windowWords(windowMs: number): string {
  return `${Number((windowMs / 1000).toFixed(1))} s`;
}

/** What live workers serve. */
export interface ServedWork {
  tasks: ReadonlySet<string>;
  workflows: ReadonlySet<string>;
}

/** What `workers` serve together: their task names and workflows. */
export function servedBy(workers: readonly WorkerPresence[]): ServedWork {
  const tasks = new Set<string>();
  const workflows = new Set<string>();
  for (const worker of workers) {
    for (const task of worker.tasks) tasks.add(task);
    for (const workflow of worker.workflows) workflows.add(workflow);
  }
  return { tasks, workflows };
}

/** What the workers heard from since `since` serve. */
export async function servedSince(
  tx: Pick<StoreTx, 'listWorkers'>,
  since: number,
): Promise<ServedWork> {
  return servedBy(await tx.listWorkers(since));
}

/**
 * Notes for a view's waits: asks the store once, only when some wait has lasted a whole
 * window, and says for a task or workflow no live worker served in it
 * ` — no worker has served task brown in the last 30 s`.
 */
export class UnservedNotes {
  private served: ServedWork | undefined;

  private constructor(
    private readonly windowMs: number,
    served: ServedWork | undefined,
  ) {
    this.served = served;
  }

  /**
   * Reads what live workers serve when any of `since` (the times waits began) is a
   * whole window ago; otherwise no wait gets a note and the store is not asked.
   */
  static async read(
    tx: Pick<StoreTx, 'listWorkers'>,
    now: number,
    since: readonly (number | null | undefined)[],
  ): Promise<UnservedNotes> {
    const windowMs = presenceWindowMs();
    const due = since.some((t) => typeof t === 'number' && t <= now - windowMs);
    return new UnservedNotes(windowMs, due ? await servedSince(tx, now - windowMs) : undefined);
  }

  /** The note for a wait on task `name` that began at `since` (empty when served, or too recent). */
  task(name: string, since: number | null | undefined, now: number): string {
    if (!this.served || !this.longEnough(since, now) || this.served.tasks.has(name)) return '';
    return ` — no worker has served task ${name} in the last ${windowWords(this.windowMs)}`;
  }

  /** The note for a wait on a worker with code-first workflow `name`'s code. */
  workflow(name: string, since: number | null | undefined, now: number): string {
    if (!this.served || !this.longEnough(since, now) || this.served.workflows.has(name)) return '';
    return ` — no worker with workflow ${name} has run in the last ${windowWords(this.windowMs)}`;
  }

  private longEnough(since: number | null | undefined, now: number): boolean {
    return typeof since === 'number' && since <= now - this.windowMs;
  }
}
