/**
 * The task handlers every benchmark workflow uses: no-ops, so the figures measure weft
 * and its store, not the work.
 */
import type { TaskHandlers } from '../src/worker/task-handler.js';

/** The task name every benchmark task activity runs. */
export const NOOP_TASK = 'noop';

/** Handlers by name: `noop` returns null at once. */
export const benchHandlers: TaskHandlers = {
  [NOOP_TASK]: async () => null,
};

export default benchHandlers;
