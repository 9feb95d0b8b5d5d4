/**
 * The TypeScript decision executer: runs every ongoing branch of a decision, one after
 * the other, by calling the workflow's method on a fresh workflow object loaded with the
 * branch's properties.
 *
 * How a run ends. The method is called and the executer waits for the first of:
 * - the run *stops*: an operation could not complete (a work not done yet) or met
 *   modified history. Stopping is known at the moment of the call, so nothing depends
 *   on timing; the stopped promise never settles and is dropped with its object.
 * - the method's promise *settles*: the branch returned (its end) or threw.
 * - the microtask queue *drains* (a `setImmediate` fires) with neither: the code awaits
 *   something that is not a workflow operation (I/O, a timer). That is a determinism
 *   bug; the branch fails with {@link NonDeterminismError}.
 * Workflow operations resolve in microtasks, so a branch replaying hundreds of completed
 * works finishes before the drain check.
 */
import { NonDeterminismError, TaskFailedError, WeftError } from '../core/errors.js';
import type { ErrorRecord, Json } from '../store/records.js';
import { BranchRun } from './branch-run.js';
import {
  DecisionSession,
  type DecisionSessionOptions,
  type NextBranch,
} from './decision-session.js';
import type { DecisionOutcome, DecisionRequest } from './decisions.js';
import type { WorkflowDefinition } from './definitions.js';
import { type JsonObject, toJson } from './stable-json.js';
import { attachBranchRun, type Workflow, type WorkInfo } from './workflow.js';
import { loadProperties, snapshotProperties } from './workflow-object.js';

/** A JSON-safe record of anything thrown (no stack: it differs between processes). */
export function errorRecordOf(error: unknown): ErrorRecord {
  if (error instanceof WeftError) {
    const record: ErrorRecord = { name: error.name, message: error.message, code: error.code };
    if (error instanceof TaskFailedError) record.failure = error.failure;
    return record;
  }
  if (error instanceof Error) return { name: error.name, message: error.message };
  return { name: 'Error', message: String(error) };
}

function workInfo(branch: NextBranch['branch']): WorkInfo {
  return {
    type: (branch.work_type ?? 'task') as WorkInfo['type'],
    name: branch.task_name ?? '',
    input: branch.task_input ?? null,
    uuid: branch.work_uuid ?? '',
  };
}

type Method = (...args: unknown[]) => unknown;

/** The method a branch runs and its arguments, or null when the workflow lacks it. */
function branchCall(workflow: Workflow, branch: NextBranch['branch']): [Method, unknown[]] | null {
  const methods = workflow as unknown as Record<string, unknown>;
  const pick = (name: string, args: unknown[]): [Method, unknown[]] | null =>
    typeof methods[name] === 'function' ? [methods[name] as Method, args] : null;
  switch (branch.type) {
    case 'handle':
      return pick('handle', branch.input ?? []);
    case 'onEvent':
      return pick('onEvent', [branch.event_name, branch.event_input ?? null]);
    case 'onStart':
    case 'onTimeout':
      return pick(branch.type, [workInfo(branch)]);
    case 'onSuccess':
      return pick('onSuccess', [workInfo(branch), branch.task_output ?? null]);
    case 'onFailure': {
      const info = workInfo(branch);
      const e = branch.error_input ?? { name: 'Error', message: 'failed' };
      const failure = e.code !== undefined ? { name: e.name, message: e.message, code: e.code } : e;
      return pick('onFailure', [info, new TaskFailedError(info.type, info.name, failure)]);
    }
  }
}

const DRAINED = Symbol('drained');
const drained = () =>
  new Promise<typeof DRAINED>((resolve) => setImmediate(() => resolve(DRAINED)));

type Settled = { ok: true; value: unknown } | { ok: false; error: unknown };

function endOf(workflow: Workflow, settled: Settled, fallback: JsonObject) {
  try {
    const properties = snapshotProperties(workflow);
    if (!settled.ok) return { properties, error: errorRecordOf(settled.error) };
    if (settled.value === undefined) return { properties };
    return { properties, output: toJson(settled.value, 'branch output') as Json };
  } catch (error) {
    return { properties: fallback, error: errorRecordOf(error) };
  }
}

/** Runs the session's current branch to its end or its stop. */
async function runBranch(
  definition: WorkflowDefinition<never[], unknown>,
  next: NextBranch,
  session: DecisionSession,
  instanceId: string,
): Promise<void> {
  const workflow = definition.create();
  loadProperties(workflow, next.properties);
  const run = new BranchRun(session, instanceId, {
    snapshot: () => snapshotProperties(workflow),
    load: (properties) => loadProperties(workflow, properties),
  });
  attachBranchRun(workflow, run);
  const call = branchCall(workflow, next.branch);
  if (!call) {
    session.endBranch({ properties: next.properties });
    return;
  }
  const [method, args] = call;
  const settled = new Promise((resolve) => resolve(method.apply(workflow, args))).then(
    (value): Settled => ({ ok: true, value }),
    (error): Settled => ({ ok: false, error }),
  );
  const first = await Promise.race([settled, run.stopped, drained()]);
  run.close();
  if (run.stopKind === 'modified') return;
  if (run.stopKind === 'parked') {
    if (run.parkError) {
      session.endBranch({ properties: next.properties, error: errorRecordOf(run.parkError) });
    } else {
      session.endBranch({ properties: run.parkedProperties ?? next.properties, parked: true });
    }
    return;
  }
  if (first === DRAINED) {
    const error = new NonDeterminismError(
      `branch ${next.branch.key} (${next.branch.type}) awaited something that is not a workflow operation`,
      next.branch.key,
    );
    session.endBranch({ properties: next.properties, error: errorRecordOf(error) });
    return;
  }
  session.endBranch(endOf(workflow, first as Settled, next.properties));
}

/** Options of {@link runDecision}. */
export type RunDecisionOptions = DecisionSessionOptions;

/**
 * Runs a whole decision in this process: every ongoing branch, in order, until none is
 * left or the code is found modified. Returns the decisions for `applyDecisions`.
 */
export async function runDecision(
  request: DecisionRequest,
  definition: WorkflowDefinition<never[], unknown>,
  options: RunDecisionOptions,
): Promise<DecisionOutcome> {
  const session = new DecisionSession(request, options);
  for (;;) {
    const next = session.nextBranch();
    if (next.branch === undefined) break;
    await runBranch(definition, next, session, request.instance_id);
    if (session.modified) break;
  }
  return session.decisions();
}
