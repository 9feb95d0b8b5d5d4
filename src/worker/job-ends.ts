/**
 * Job ends as a worker sees them: a view of a store whose transactions report every job
 * they move into a final state (SUCCESS, FAILURE, REVERTED) once they have committed
 * (commit-report.ts), and the log line of each.
 */
import type { JobRecord } from '../store/records.js';
import type { Store } from '../store/store.js';
import { reportingCommits } from './commit-report.js';
import { logWarning, type WorkerLogger } from './worker-options.js';

/** Told of each job a committed transaction ended, with the job as it was written. */
export type JobEndListener = (job: JobRecord) => void;

/**
 * `store` with transactions that report the jobs they end to `listener` after commit.
 * A backend that runs a transaction's callback again reports only the committed run.
 */
export function reportingJobEnds(store: Store, listener: JobEndListener): Store {
  return reportingCommits(store, (report) => {
    for (const job of report.ended) listener(job);
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
