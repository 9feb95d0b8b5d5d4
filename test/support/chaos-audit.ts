/**
 * The chaos worker's audit: a few counters written inside the very transactions the
 * engine commits, so they are exactly as durable as the steps they describe. A step that
 * rolls back (a kill, a lost lease) leaves no audit trace; a step that commits always
 * does. A job's counters live under a namespace of its root job's own,
 * {@link auditNamespace}, and every field names the job it belongs to, so only a
 * transaction holding that job's lock ever writes it (no shared hot row, no new lock
 * order). On a Redis Cluster the namespace is in the job's partition (its id's root is
 * the job's), so the audit is written by the same script as the step: a commit split over
 * several slots, whose client is killed between two of them, leaves each job's step and
 * its audit both written or both not (one namespace for the run sat in a slot of its own,
 * written before the steps' slots, and a kill in between counted a step that never was).
 *
 * - `ended:<job>`: steps that ended the job. More than 1 means a job ended twice.
 * - `refused:<job>`: steps the semaphore refused as duplicates (Leg1 done, Leg2 closed).
 * - `dropped:<job>`: messages that came after the job had ended.
 * - `commit:<task key>`: task results committed for one attempt (must be exactly 1).
 * - `commit-by:<task key>`: the worker number that committed it (a sum, so only
 *   meaningful when `commit` is 1).
 */
import { isFinalFlowState } from '../../src/core/states.js';
import type { Action } from '../../src/durable/actions.js';
import type { DurableEngine } from '../../src/durable/durable-engine.js';
import type { GraphEngine, StepResult } from '../../src/engine/graph-engine.js';
import type { EngineMessage, TaskResponse } from '../../src/engine/messages.js';
import type { StoreTx } from '../../src/store/store.js';
import { taskKey } from './chaos-handlers.js';

/**
 * The counter namespace (`job` of the audit counters) of a job and its children: its
 * root's id (up to the first `.`, which the Redis store's partitions hash) and a suffix
 * no engine names a child with.
 */
export function auditNamespace(job: string): string {
  const dot = job.indexOf('.');
  return `${dot < 0 ? job : job.slice(0, dot)}.chaos-audit`;
}

async function bump(tx: StoreTx, job: string, field: string, by = 1n): Promise<void> {
  await tx.addCounter({ job: auditNamespace(job), field }, by);
}

async function recordStep(tx: StoreTx, job: string, result: StepResult): Promise<void> {
  if (result.ended) await bump(tx, job, `ended:${job}`);
  if (result.status === 'duplicate') await bump(tx, job, `refused:${job}`);
  if (result.status === 'dropped') await bump(tx, job, `dropped:${job}`);
}

/**
 * Wraps a worker's graph engine so every engine step and every task response it commits
 * also writes the audit counters, in the same transaction. `worker` is the driver's
 * number for this worker process.
 */
export function tapGraphEngine(engine: GraphEngine, worker: number): void {
  const responded = async (tx: StoreTx, response: TaskResponse, result: StepResult) => {
    const a = response.revert ? `${response.a}!revert` : response.a;
    const key = taskKey(response.job, a, response.d, response.attempt);
    await bump(tx, response.job, `commit:${key}`);
    await bump(tx, response.job, `commit-by:${key}`, BigInt(worker));
    await recordStep(tx, response.job, result);
  };
  // Every step goes through the batch forms (`handle` and `respond` are batches of one):
  // one result per message or response, in order.
  const handleBatch = engine.handleBatch.bind(engine);
  const respondBatch = engine.respondBatch.bind(engine);
  engine.handleBatch = async (tx: StoreTx, messages: readonly EngineMessage[]) => {
    const results = await handleBatch(tx, messages);
    for (const [i, m] of messages.entries()) await recordStep(tx, m.job, results[i] as StepResult);
    return results;
  };
  engine.respondBatch = async (tx: StoreTx, responses: readonly TaskResponse[]) => {
    const results = await respondBatch(tx, responses);
    for (const [i, r] of responses.entries()) await responded(tx, r, results[i] as StepResult);
    return results;
  };
}

/**
 * Wraps a worker's code-first engine the same way: a step that moves its job into a final
 * state counts `ended`, and a task result it records counts `commit` for that attempt.
 */
export function tapDurableEngine(engine: DurableEngine, worker: number): void {
  const track =
    <A extends unknown[]>(run: (tx: StoreTx, job: string, ...rest: A) => Promise<void>) =>
    async (tx: StoreTx, job: string, ...rest: A) => {
      const before = (await tx.getJob(job))?.state;
      await run(tx, job, ...rest);
      const after = (await tx.getJob(job))?.state;
      if (before && after && !isFinalFlowState(before) && isFinalFlowState(after)) {
        await bump(tx, job, `ended:${job}`);
      }
    };
  const act = engine.act.bind(engine);
  engine.act = track(async (tx, job, action: Action) => {
    await act(tx, job, action);
    if (action.type === 'onSuccess' || action.type === 'onFailure') {
      const key = taskKey(job, action.uuid, '', 1);
      await bump(tx, job, `commit:${key}`);
      await bump(tx, job, `commit-by:${key}`, BigInt(worker));
    }
  });
  engine.decide = track(engine.decide.bind(engine));
  engine.control = track(engine.control.bind(engine));
}

/** The audit counters of a run, read back and grouped. */
export interface AuditCounters {
  ended: Map<string, bigint>;
  refused: Map<string, bigint>;
  dropped: Map<string, bigint>;
  commits: Map<string, bigint>;
  commitBy: Map<string, bigint>;
}

/** Reads and groups the audit counters of the jobs `roots` started (and their children). */
export async function readAudit(tx: StoreTx, roots: Iterable<string>): Promise<AuditCounters> {
  const audit: AuditCounters = {
    ended: new Map(),
    refused: new Map(),
    dropped: new Map(),
    commits: new Map(),
    commitBy: new Map(),
  };
  const groups: Record<string, Map<string, bigint>> = {
    ended: audit.ended,
    refused: audit.refused,
    dropped: audit.dropped,
    commit: audit.commits,
    'commit-by': audit.commitBy,
  };
  const namespaces = new Set([...roots].map(auditNamespace));
  for (const namespace of namespaces) {
    for (const [field, value] of await tx.listCounters(namespace)) {
      const colon = field.indexOf(':');
      const group = groups[field.slice(0, colon)];
      group?.set(field.slice(colon + 1), value);
    }
  }
  return audit;
}
