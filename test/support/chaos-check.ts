/**
 * The end-of-run checks of the chaos harness. Run after every worker has stopped, on the
 * store, the audit counters and the handler logs; returns the numbers the report prints
 * and one line per violation (none on a good run).
 */
import type { JobRecord } from '../../src/store/records.js';
import type { Store } from '../../src/store/store.js';
import { type AttemptTimeFacts, checkAttemptTimes } from './chaos-attempt-times.js';
import { readAudit } from './chaos-audit.js';
import { checkJob, emptyJobTally, type JobTally, type Violation } from './chaos-check-jobs.js';
import { type HandlerRun, readHandlerRuns } from './chaos-handlers.js';
import { CHAOS_WORKLOADS } from './chaos-workloads.js';

/** Everything a chaos run is judged on. */
export interface ChaosFacts extends AttemptTimeFacts {
  jobsStarted: number;
  /** Top-level jobs that ended in SUCCESS. */
  jobsEnded: number;
  childJobs: number;
  childJobsEnded: number;
  /** Jobs (top-level or child) that never ended. */
  jobsLost: number;
  /** Jobs that ended in another state than SUCCESS. */
  jobsFailed: number;
  jobsEndedTwice: number;
  semaphoresChecked: number;
  /** Semaphores showing a leg that ran other than exactly once. */
  stepsRunTwice: number;
  wrongKeys: number;
  wrongOutputs: number;
  /** Deliveries the semaphore refused as duplicates (a redelivery after a kill, say). */
  duplicatesRefused: number;
  /** Messages that arrived after their job had ended. */
  lateMessages: number;
  handlerRuns: number;
  /** Runs beyond the one whose result committed. */
  handlerReruns: number;
  /** Re-runs after the worker running the earlier run was killed mid-handler. */
  rerunsKilledMidHandler: number;
  /** Re-runs after the worker was killed between the handler's end and its commit. */
  rerunsKilledBeforeCommit: number;
  rerunsUnaccounted: number;
  messagesLeft: number;
  deadLetters: number;
  timersLeft: number;
}

/** What the checks need besides the store. */
export interface ChaosCheckInput {
  store: Store;
  /** Ids of the top-level jobs the driver started. */
  jobIds: readonly string[];
  /** The directory holding the workers' handler logs. */
  logDir: string;
  /** Worker number → when the driver SIGKILLed it (epoch ms). */
  kills: ReadonlyMap<number, number>;
}

/** The outcome of the checks. */
export interface ChaosCheck {
  facts: ChaosFacts;
  violations: Violation[];
}

export type { Violation };

async function allJobs(store: Store): Promise<JobRecord[]> {
  const jobs: JobRecord[] = [];
  for (let after: string | undefined; ; ) {
    const page = await store.listJobs({ limit: 500, ...(after ? { after } : {}) });
    jobs.push(...page);
    if (page.length < 500) return jobs;
    after = page.at(-1)?.id;
  }
}

/** Up to 20 messages still in the streams, described. */
async function leftovers(store: Store): Promise<string[]> {
  const streams = ['engine', ...CHAOS_WORKLOADS.flatMap((w) => w.taskStreams)];
  const found: string[] = [];
  for (const stream of streams) {
    for (const m of await store.peek(stream, 20)) {
      found.push(`${stream} #${m.id} (${m.deliveries} deliveries): ${JSON.stringify(m.payload)}`);
    }
  }
  const total = await store.countMessages();
  if (total > found.length) found.push(`${total - found.length} more, on other streams`);
  return found;
}

const sum = (values: Iterable<bigint>) => [...values].reduce((a, b) => a + Number(b), 0);

/** Runs every check. */
export async function checkChaosRun(input: ChaosCheckInput): Promise<ChaosCheck> {
  const { store } = input;
  const violations: Violation[] = [];
  const audit = await readAudit(store, input.jobIds);
  const started = new Set(input.jobIds);
  const parents = emptyJobTally();
  const children = emptyJobTally();
  let childJobs = 0;
  const expectedAttempts: string[] = [];
  const jobs = await allJobs(store);
  const found = new Set(jobs.map((j) => j.id));
  for (const job of jobs) {
    const top = started.has(job.id);
    if (!top && (job.parentId === null || !found.has(job.parentId))) {
      violations.push({ check: 'stray job', detail: `job ${job.id} was started by nobody` });
    }
    if (!top) childJobs++;
    const tally = top ? parents : children;
    expectedAttempts.push(...(await checkJob(store, job, audit, tally, violations)));
  }
  for (const id of started) {
    if (!found.has(id)) {
      parents.lost++;
      violations.push({ check: 'job never ended', detail: `job ${id} is not in the store` });
    }
  }
  const runs = readHandlerRuns(input.logDir);
  const handlers = checkHandlerRuns(
    input,
    runs,
    audit.commits,
    audit.commitBy,
    expectedAttempts,
    violations,
  );
  const byId = new Map(jobs.map((j) => [j.id, j]));
  const attemptTimes = checkAttemptTimes(runs, audit.commitBy, byId, violations);
  const messagesLeft = await store.countMessages();
  for (const m of messagesLeft > 0 ? await leftovers(store) : []) {
    violations.push({ check: 'message left', detail: m });
  }
  const dead = await store.listDeadLetters(undefined, 1000);
  for (const d of dead) {
    violations.push({
      check: 'dead letter',
      detail: `${d.stream} ${JSON.stringify(d.payload)}: ${d.reason}`,
    });
  }
  const nextTimer = await store.nextTimerAt();
  if (nextTimer !== undefined) {
    violations.push({
      check: 'timer left',
      detail: `one is due at ${new Date(nextTimer).toISOString()}`,
    });
  }
  const both = (pick: (t: JobTally) => number) => pick(parents) + pick(children);
  return {
    violations,
    facts: {
      jobsStarted: started.size,
      jobsEnded: parents.ended,
      childJobs,
      childJobsEnded: children.ended,
      jobsLost: both((t) => t.lost),
      jobsFailed: both((t) => t.failed),
      jobsEndedTwice: both((t) => t.endedTwice),
      semaphoresChecked: both((t) => t.semaphores),
      stepsRunTwice: both((t) => t.stepsRunTwice),
      wrongKeys: both((t) => t.wrongKeys),
      wrongOutputs: both((t) => t.wrongOutputs),
      duplicatesRefused: sum(audit.refused.values()),
      lateMessages: sum(audit.dropped.values()),
      ...handlers,
      ...attemptTimes,
      messagesLeft,
      deadLetters: dead.length,
      timersLeft: nextTimer === undefined ? 0 : 1,
    },
  };
}

type HandlerFacts = Pick<
  ChaosFacts,
  | 'handlerRuns'
  | 'handlerReruns'
  | 'rerunsKilledMidHandler'
  | 'rerunsKilledBeforeCommit'
  | 'rerunsUnaccounted'
>;

/**
 * Every task attempt's result committed exactly once, by a worker whose log shows that
 * run; every other run of the attempt was in a worker the driver killed before the
 * committing run began. Anything else is an unaccounted re-run.
 */
function checkHandlerRuns(
  input: ChaosCheckInput,
  runs: ReadonlyMap<string, HandlerRun[]>,
  commits: ReadonlyMap<string, bigint>,
  commitBy: ReadonlyMap<string, bigint>,
  expectedAttempts: readonly string[],
  violations: Violation[],
): HandlerFacts {
  const facts: HandlerFacts = {
    handlerRuns: 0,
    handlerReruns: 0,
    rerunsKilledMidHandler: 0,
    rerunsKilledBeforeCommit: 0,
    rerunsUnaccounted: 0,
  };
  for (const list of runs.values()) facts.handlerRuns += list.length;
  for (const key of expectedAttempts) {
    if (!commits.has(key)) {
      violations.push({
        check: 'task result missing',
        detail: `${key} finished, no result committed`,
      });
    }
  }
  for (const [key, list] of runs) {
    if (!commits.has(key)) {
      facts.rerunsUnaccounted += list.length;
      violations.push({
        check: 'handler ran, result never committed',
        detail: `${key} ran ${list.length} time(s)`,
      });
    }
  }
  for (const [key, count] of commits) {
    if (count !== 1n) {
      violations.push({ check: 'task result committed twice', detail: `${key}: ${count} results` });
    }
    const list = runs.get(key) ?? [];
    const by = Number(commitBy.get(key) ?? 0n);
    const committing = list.filter((r) => r.worker === by);
    if (count !== 1n || committing.length !== 1) {
      facts.rerunsUnaccounted += Math.max(0, list.length - 1);
      if (count === 1n) {
        violations.push({
          check: 'unaccounted handler re-run',
          detail: `${key}: w${by} committed it after ${committing.length} runs of its own`,
        });
      }
      continue;
    }
    const winner = committing[0] as HandlerRun;
    for (const run of list) {
      if (run === winner) continue;
      facts.handlerReruns++;
      const killedAt = input.kills.get(run.worker);
      if (killedAt !== undefined && killedAt <= winner.startedAt) {
        if (run.ended) facts.rerunsKilledBeforeCommit++;
        else facts.rerunsKilledMidHandler++;
      } else {
        facts.rerunsUnaccounted++;
        violations.push({
          check: 'unaccounted handler re-run',
          detail: `${key}: ran again in w${winner.worker} although w${run.worker}${killedAt === undefined ? ' was never killed' : ' was killed only later'}${run.ended ? '' : ' (its run never ended)'}`,
        });
      }
    }
  }
  return facts;
}
