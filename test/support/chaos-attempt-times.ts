/**
 * The chaos check that no retry ran before its time. A task attempt that failed is
 * retried after its backoff: the retry's message becomes claimable at the commit of the
 * failed attempt's result plus the delay its policy gives. The committing run's END line
 * is written before that commit, so every run of attempt n must start at least
 * `delay(n)` after the END of the run that committed attempt n − 1 — whichever worker
 * claimed it, the one that appended it included.
 */
import { retryDelay } from '../../src/core/retry-policy.js';
import { taskRetryPolicy } from '../../src/engine/kinds/task.js';
import type { JobRecord } from '../../src/store/records.js';
import type { Violation } from './chaos-check-jobs.js';
import type { HandlerRun } from './chaos-handlers.js';
import { workloadOf } from './chaos-workloads.js';

/** What the attempt-time check counted. */
export interface AttemptTimeFacts {
  /** Retries (attempt 2 and later) whose start was checked against their backoff. */
  retriesTimed: number;
  /** Runs of a retry that started before the failed attempt's end plus its backoff. */
  retriesEarly: number;
  /** The shortest wait seen past a retry's backoff, in ms (how close a retry came). */
  closestMarginMs: number | null;
}

/** The backoff before `attempt` of a graph job's activity, if its workload's graph says. */
function backoffOf(job: JobRecord | undefined, activity: string, attempt: number): number | null {
  if (!job) return null;
  const graph = workloadOf(job.workflow)?.graph(job.workflow);
  const compiled = graph?.activities[activity];
  if (compiled?.kind !== 'task') return null;
  // Jitter only ever adds to a delay: with none drawn, the delay is the least wait.
  return retryDelay(taskRetryPolicy(compiled), attempt, () => 0);
}

/** Checks every retry in the handler logs against the run that committed the attempt before it. */
export function checkAttemptTimes(
  runs: ReadonlyMap<string, readonly HandlerRun[]>,
  commitBy: ReadonlyMap<string, bigint>,
  jobs: ReadonlyMap<string, JobRecord>,
  violations: Violation[],
): AttemptTimeFacts {
  const facts: AttemptTimeFacts = { retriesTimed: 0, retriesEarly: 0, closestMarginMs: null };
  for (const [key, list] of runs) {
    const [job, activity, dimension, attemptText] = key.split('|');
    const attempt = Number(attemptText);
    if (job === undefined || activity === undefined || !(attempt >= 2)) continue;
    const delay = backoffOf(jobs.get(job), activity, attempt);
    if (delay === null) continue;
    const previous = `${job}|${activity}|${dimension}|${attempt - 1}`;
    const by = Number(commitBy.get(previous) ?? 0n);
    const committed = (runs.get(previous) ?? []).find((r) => r.worker === by && r.ended);
    if (committed?.endedAt === undefined) continue;
    const due = committed.endedAt + delay;
    for (const run of list) {
      facts.retriesTimed++;
      const margin = run.startedAt - due;
      if (facts.closestMarginMs === null || margin < facts.closestMarginMs) {
        facts.closestMarginMs = margin;
      }
      if (margin < 0) {
        facts.retriesEarly++;
        violations.push({
          check: 'retry ran before its backoff',
          detail: `${key} started in w${run.worker} ${-margin} ms early: attempt ${attempt - 1} ended at ${committed.endedAt} in w${by}, backoff ${delay} ms`,
        });
      }
    }
  }
  return facts;
}
