/**
 * The per-job checks of a chaos run, read from the store after every worker stopped:
 * each job ended once, in SUCCESS, with the output and collation key its input implies,
 * and every activity semaphore shows each leg ran exactly once (seed 001).
 */
import { isDeepStrictEqual } from 'node:util';
import { createCollationLayout, formatCollationKey } from '../../src/core/collation.js';
import { parseSemaphore } from '../../src/core/semaphore.js';
import { isFinalFlowState } from '../../src/core/states.js';
import { loadInstance } from '../../src/durable/instance-store.js';
import type { CompiledWorkflow } from '../../src/engine/kinds/index.js';
import type { ActivityRecord, JobRecord } from '../../src/store/records.js';
import type { StoreTx } from '../../src/store/store.js';
import type { AuditCounters } from './chaos-audit.js';
import { taskKey } from './chaos-handlers.js';
import { workloadOf } from './chaos-workloads.js';

/** One broken promise found by a check: which check, and the details. */
export interface Violation {
  check: string;
  detail: string;
}

/** What the job checks counted. */
export interface JobTally {
  ended: number;
  failed: number;
  lost: number;
  endedTwice: number;
  semaphores: number;
  stepsRunTwice: number;
  wrongKeys: number;
  wrongOutputs: number;
}

/** An empty tally. */
export function emptyJobTally(): JobTally {
  return {
    ended: 0,
    failed: 0,
    lost: 0,
    endedTwice: 0,
    semaphores: 0,
    stepsRunTwice: 0,
    wrongKeys: 0,
    wrongOutputs: 0,
  };
}

/** Checks one job; adds to `tally`, pushes violations, returns the task attempts it expects results for. */
export async function checkJob(
  tx: StoreTx,
  job: JobRecord,
  audit: AuditCounters,
  tally: JobTally,
  violations: Violation[],
): Promise<string[]> {
  const fail = (check: string, what: string) =>
    violations.push({ check, detail: `job ${job.id}: ${what}` });
  if (job.state === 'RUNNING' || job.state === 'PENDING') {
    tally.lost++;
    fail('job never ended', `still ${job.state}`);
  } else if (job.state !== 'SUCCESS') {
    tally.failed++;
    fail('job failed', `ended ${job.state}${job.error ? `: ${job.error.message}` : ''}`);
  } else {
    tally.ended++;
  }
  const ends = Number(audit.ended.get(job.id) ?? 0n);
  if (ends > 1) {
    tally.endedTwice++;
    fail('job ended twice', `ended ${ends} times`);
  } else if (ends === 0 && isFinalFlowState(job.state)) {
    fail('job ended outside the engine', 'no committed engine step ended it');
  }
  const workload = workloadOf(job.workflow);
  if (!workload) {
    fail('stray job', `runs workflow ${job.workflow}, which no chaos workload owns`);
    return [];
  }
  const expected = workload.expectedOutput(job.workflow, job.input);
  if (job.state === 'SUCCESS' && !isDeepStrictEqual(job.output, expected)) {
    tally.wrongOutputs++;
    fail('wrong output', `${JSON.stringify(job.output)}, expected ${JSON.stringify(expected)}`);
  }
  const compiled = workload.graph(job.workflow);
  if (job.model === 'durable') return checkDurableJob(tx, job, tally, fail);
  if (!compiled) return [];
  return checkGraphJob(
    tx,
    job,
    compiled,
    workload.expectedKey(job.workflow, job.input),
    tally,
    fail,
  );
}

/** Kinds whose activity has a Leg2 (a response ends it). */
function hasLeg2(compiled: CompiledWorkflow, activity: string): boolean {
  const a = compiled.activities[activity];
  if (!a) return false;
  if (a.kind === 'await') return a.await !== false;
  return a.kind === 'task' || a.kind === 'hook' || a.kind === 'sleep';
}

async function checkGraphJob(
  tx: StoreTx,
  job: JobRecord,
  compiled: CompiledWorkflow,
  expectedKey: string | undefined,
  tally: JobTally,
  fail: (check: string, what: string) => void,
): Promise<string[]> {
  const counters = await tx.listCounters(job.id);
  const layout = createCollationLayout(compiled.order);
  const key = counters.get('collation');
  const keyText = key === undefined ? 'none' : formatCollationKey(layout, key);
  if (expectedKey !== undefined && keyText !== expectedKey) {
    tally.wrongKeys++;
    fail('wrong collation key', `${keyText}, expected ${expectedKey}`);
  }
  const records = new Map<string, ActivityRecord>();
  for (const r of await tx.listActivities(job.id)) records.set(`${r.activity}/${r.dimension}`, r);
  const attempts: string[] = [];
  const seen = new Set<string>();
  for (const [name, value] of counters) {
    const parts = name.split('/');
    if (parts.length !== 3 || parts[2] !== 'sem') continue;
    const [activity = '', dimension = ''] = parts;
    seen.add(`${activity}/${dimension}`);
    tally.semaphores++;
    const sem = parseSemaphore(value);
    const record = records.get(`${activity}/${dimension}`);
    const kind = compiled.activities[activity]?.kind;
    // A task takes one Leg2 input per attempt; hooks, sleeps and awaits exactly one.
    const inputs = hasLeg2(compiled, activity) ? (kind === 'task' ? (record?.attempt ?? 1) : 1) : 0;
    const twice: string[] = [];
    const unfinished: string[] = [];
    if (kind === 'spread') {
      // Seed 001's thread counters: one entry per item spawned, one exit per thread that
      // reached the collect — never more, and all of them once the job is over.
      const count = (record?.output as { count?: number } | null)?.count ?? 0;
      if (sem.leg1Entry < 8 || sem.leg1Exit < 8) twice.push('Leg1 ran more than once');
      if (sem.leg2Entries !== count)
        twice.push(`${sem.leg2Entries} threads spawned, ${count} items`);
      if (sem.leg2Exits > count) twice.push(`${sem.leg2Exits} threads done of ${count}`);
      if (twice.length > 0) {
        tally.stepsRunTwice++;
        fail(
          'spread thread counted twice (semaphore)',
          `${activity}/${dimension} is ${value}: ${twice.join('; ')}`,
        );
      } else if (sem.leg2Exits < count && isFinalFlowState(job.state)) {
        fail('spread thread unfinished', `${activity}/${dimension} is ${value}`);
      }
      continue;
    }
    if (sem.leg1Entry < 8) twice.push(`Leg1 entered ${9 - sem.leg1Entry} times`);
    if (sem.leg1Exit < 8) twice.push(`Leg1 exited ${9 - sem.leg1Exit} times`);
    if (sem.leg2Exit < 8) twice.push('Leg2 closed more than once');
    if (sem.leg2Entries > inputs)
      twice.push(`Leg2 entered ${sem.leg2Entries} times, expected ${inputs}`);
    if (sem.leg2Exits > sem.leg2Entries) twice.push('Leg2 exited more often than entered');
    if (sem.leg1Exit === 9) unfinished.push('Leg1 never finished');
    if (inputs > 0 && sem.leg2Exit === 9) unfinished.push('Leg2 never closed');
    if (inputs === 0 && sem.leg2Exit !== 9) twice.push('a kind without Leg2 closed Leg2');
    if (sem.leg2Entries < inputs || sem.leg2Exits < sem.leg2Entries) {
      unfinished.push(`Leg2 ${sem.leg2Entries} in, ${sem.leg2Exits} out, expected ${inputs}`);
    }
    if (twice.length > 0) {
      tally.stepsRunTwice++;
      fail(
        'step run twice (semaphore)',
        `${activity}/${dimension} is ${value}: ${twice.join('; ')}`,
      );
    } else if (unfinished.length > 0 && isFinalFlowState(job.state)) {
      fail(
        'step left unfinished',
        `${activity}/${dimension} is ${value}: ${unfinished.join('; ')}`,
      );
    }
    if (kind === 'task' && record?.status === 'SUCCESS') {
      for (let n = 1; n <= record.attempt; n++)
        attempts.push(taskKey(job.id, activity, dimension, n));
    }
  }
  for (const [where, record] of records) {
    const entered = seen.has(where);
    // Records no Leg1 writes: a spread's per-thread item, a collect's emissions and the
    // items it holds (`<collect>@`).
    const kind = compiled.activities[record.activity]?.kind;
    if (record.activity.endsWith('@') || kind === 'collect') continue;
    if (kind === 'spread' && record.dimension.includes(`${record.activity}#`)) continue;
    if (record.status === 'IGNORE' && entered)
      fail('skipped activity ran', `${where} has a semaphore`);
    if (record.status !== 'IGNORE' && !entered) fail('activity without semaphore', where);
  }
  return attempts;
}

/**
 * A code-first job: each work's semaphore must show Leg1 once and exactly one recorded
 * result (`888000001000001`), and its instance must have ended with every branch ended.
 */
async function checkDurableJob(
  tx: StoreTx,
  job: JobRecord,
  tally: JobTally,
  fail: (check: string, what: string) => void,
): Promise<string[]> {
  const attempts: string[] = [];
  for (const [name, value] of await tx.listCounters(job.id)) {
    const [work = '', , field] = name.split('/');
    if (field !== 'sem') continue;
    tally.semaphores++;
    attempts.push(taskKey(job.id, work, '', 1));
    if (value !== 888_000_001_000_001n) {
      tally.stepsRunTwice++;
      fail('work semaphore', `${work} reads ${value}, expected 888000001000001`);
    }
  }
  const instance = (await loadInstance(tx, job))?.instance;
  if (job.state === 'SUCCESS' && !(instance?.branches ?? []).every((b) => b.ended)) {
    fail('instance', 'ended with a branch that never reached its end');
  }
  return attempts;
}
