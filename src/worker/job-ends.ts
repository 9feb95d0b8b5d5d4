/**
 * Job ends as a worker sees them: a view of a store whose transactions note every job
 * they move into a final state (SUCCESS, FAILURE), reported once the transaction has
 * committed. The engines stay as they are — they move jobs through `setJobState` — and
 * the worker, which owns the transactions, learns which jobs its commits ended.
 */
import { isFinalFlowState } from '../core/states.js';
import type { JobRecord } from '../store/records.js';
import type { Store, StoreTx } from '../store/store.js';
import { logWarning, type WorkerLogger } from './worker-options.js';

/** Told of each job a committed transaction ended, with the job as it was written. */
export type JobEndListener = (job: JobRecord) => void;

/** A view of `tx` that notes the jobs it ends in `ended`. */
function noting(tx: StoreTx, ended: JobRecord[]): StoreTx {
  const setJobState: StoreTx['setJobState'] = async (id, from, to, patch) => {
    const moved = await tx.setJobState(id, from, to, patch);
    if (moved && isFinalFlowState(to)) {
      const job = await tx.getJob(id);
      if (job) ended.push(job);
    }
    return moved;
  };
  return new Proxy(tx, {
    get(target, property) {
      if (property === 'setJobState') return setJobState;
      const value = Reflect.get(target, property);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/**
 * `store` with transactions that report the jobs they end to `listener` after commit.
 * A backend that runs a transaction's callback again reports only the committed run.
 */
export function reportingJobEnds(store: Store, listener: JobEndListener): Store {
  const transaction: Store['transaction'] = async (fn) => {
    let ended: JobRecord[] = [];
    const result = await store.transaction((tx) => {
      ended = [];
      return fn(noting(tx, ended));
    });
    for (const job of ended) listener(job);
    return result;
  };
  return new Proxy(store, {
    get(target, property) {
      if (property === 'transaction') return transaction;
      const value = Reflect.get(target, property);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/**
 * One log line per job end: info for SUCCESS, a warning for REVERTED (it failed, and what
 * it had done was undone as asked), error (with the job's error) otherwise.
 */
export function logJobEnd(logger: WorkerLogger, job: JobRecord): void {
  const fields = {
    job: job.id,
    workflow: job.workflow,
    version: job.version,
    state: job.state,
    ...(job.finishedAt !== null ? { durationMs: job.finishedAt - job.createdAt } : {}),
  };
  if (job.state === 'SUCCESS') logger.info(`job ${job.id} ${job.workflow} ended SUCCESS`, fields);
  else if (job.state === 'REVERTED') {
    logWarning(
      logger,
      `job ${job.id} ${job.workflow} ended REVERTED${job.error ? ` after: ${job.error.message}` : ''}`,
      job.error ?? undefined,
      fields,
    );
  } else {
    logger.error(
      `job ${job.id} ${job.workflow} ended ${job.state}${job.error ? `: ${job.error.message}` : ''}`,
      job.error ?? undefined,
      fields,
    );
  }
}
