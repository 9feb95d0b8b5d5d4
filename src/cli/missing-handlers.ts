/**
 * `weft worker`'s warning at start: the tasks deployed graph workflows use that its
 * handlers module lacks, and which of them no other live worker serves either — a
 * misspelt task name, or a module that forgot one, says so before a job waits there.
 */
import { deployedTasks } from '../models/deployed-tasks.js';
import { presenceWindowMs, servedBy } from '../models/served-work.js';
import type { Store } from '../store/store.js';
import { logWarning, type WorkerLogger } from '../worker/worker-options.js';

/** A deployed task this worker lacks, with the workflows that use it. */
export interface MissingHandler {
  task: string;
  workflows: string[];
  /** True when another live worker serves it. */
  servedElsewhere: boolean;
}

/** The deployed tasks a worker serving `tasks` lacks (as worker `self`, left out of "elsewhere"). */
export async function missingHandlers(
  store: Store,
  tasks: readonly string[],
  self: string,
  now: number = Date.now(),
): Promise<MissingHandler[]> {
  const have = new Set(tasks);
  const missing = [...(await deployedTasks(store))].filter(([task]) => !have.has(task));
  if (missing.length === 0) return [];
  const others = (await store.listWorkers(now - presenceWindowMs())).filter((w) => w.id !== self);
  const served = servedBy(others);
  return missing.map(([task, workflows]) => ({
    task,
    workflows,
    servedElsewhere: served.tasks.has(task),
  }));
}

/** Logs one warning for the missing handlers, if any. */
export function warnMissingHandlers(
  logger: WorkerLogger,
  missing: readonly MissingHandler[],
): void {
  if (missing.length === 0) return;
  const list = missing.map((m) => `${m.task} (${m.workflows.join(', ')})`).join(', ');
  const alone = missing.filter((m) => !m.servedElsewhere).map((m) => m.task);
  const nobody =
    alone.length === 0
      ? 'other live workers serve them'
      : `no live worker serves ${alone.join(', ')}: jobs that reach ${alone.length === 1 ? 'it wait' : 'them wait'} until a worker with ${alone.length === 1 ? 'that handler' : 'those handlers'} runs`;
  logWarning(
    logger,
    `this worker's handlers module lacks tasks deployed workflows use: ${list}; ${nobody}`,
    undefined,
    { tasks: missing.map((m) => m.task), unserved: alone },
  );
}
