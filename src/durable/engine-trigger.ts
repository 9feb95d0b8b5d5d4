/**
 * "Try to trigger a decision", "Prepare Decision" and "Trigger Decision" from the seed.
 * Preparing turns the buffer, in timestamp then reception order, into new branches
 * appended to `executions`; a completion also stores the work's result (with
 * `completion_index`) and, when the branch waited for it, runs that branch again.
 * Triggering marks a decision ongoing and builds the {@link DecisionRequest}.
 */

import type { DecisionRequest } from './decisions.js';
import {
  type Branch,
  type BufferedAction,
  type Instance,
  type Status,
  statusIndexOf,
} from './instance.js';
import { copyInstance } from './instance-life.js';

/** The decision's id and the engine time, from the runtime. */
export interface TriggerContext {
  now: number;
  uuid: string;
}

/** The instance after a trigger attempt, and the request when a decision started. */
export interface TriggerResult {
  instance: Instance;
  request: DecisionRequest | null;
}

function byTime(a: BufferedAction, b: BufferedAction): number {
  return a.timestamp - b.timestamp || a.seq - b.seq;
}

function workBranch(type: Branch['type'], status: Status): Branch {
  return {
    type,
    task_name: status.name,
    task_input: status.input,
    work_type: status.type,
    work_uuid: status.uuid,
  };
}

function planBranch(instance: Instance, branch: Branch): number {
  const index = instance.executions.length;
  instance.branches.push(branch);
  instance.executions.push(instance.branches.length - 1);
  return index;
}

/** Prepare Decision, on a copied instance. */
function prepare(instance: Instance): void {
  instance.ongoing_index = instance.decision_current_index;
  const statusOf = (uuid: string | undefined): number | undefined => {
    const at = uuid === undefined ? -1 : statusIndexOf(instance.statuses, uuid);
    return at < 0 ? undefined : at;
  };
  for (const action of [...instance.buffer].sort(byTime)) {
    const data = action.data ?? {};
    if (action.type === 'handle') {
      planBranch(instance, { type: 'handle', input: data.input ?? [] });
      continue;
    }
    if (action.type === 'onEvent') {
      const branch: Branch = { type: 'onEvent', event_name: data.event_name ?? '' };
      branch.event_input = data.event_input ?? null;
      planBranch(instance, branch);
      continue;
    }
    const at = statusOf(data.uuid);
    const status = at === undefined ? undefined : instance.statuses[at];
    if (at === undefined || !status) continue;
    if (action.type === 'onStart' || action.type === 'onTimeout') {
      planBranch(instance, workBranch(action.type, status));
      continue;
    }
    if (status.status !== 'scheduled') continue;
    const branch = workBranch(action.type, status);
    let done: Status;
    if (action.type === 'onSuccess') {
      branch.task_output = data.output ?? null;
      const index = planBranch(instance, branch);
      done = {
        ...status,
        status: 'completed',
        completion_index: index,
        output: branch.task_output,
        finished_at: action.timestamp,
      };
    } else {
      const error = data.error ?? { name: 'Error', message: 'failed' };
      branch.error_name = error.name;
      branch.error_input = error;
      const index = planBranch(instance, branch);
      done = {
        ...status,
        status: 'failed',
        completion_index: index,
        error,
        finished_at: action.timestamp,
      };
    }
    instance.statuses[at] = done;
    const owner = instance.branches[status.branch_key];
    if (status.sync && owner && !owner.ended) instance.executions.push(status.branch_key);
  }
  instance.buffer = [];
}

/** The data the seed's "Trigger Decision" sends, for the decision in flight. */
export function currentDecisionRequest(instance: Instance): DecisionRequest | null {
  if (!instance.decision_ongoing || instance.decision_uuid === null) return null;
  const ongoingIndex = instance.ongoing_index ?? 0;
  const keys = new Set(instance.executions.slice(ongoingIndex));
  const ongoing_branches: DecisionRequest['ongoing_branches'] = [];
  for (const key of [...keys].sort((a, b) => a - b)) {
    const branch = instance.branches[key];
    if (branch) ongoing_branches.push({ branch, key });
  }
  return {
    uuid: instance.decision_uuid,
    instance_id: instance.id,
    workflow_name: instance.workflow_name,
    programming_language: instance.programming_language,
    properties: instance.properties,
    executions: instance.executions,
    ongoing_index: ongoingIndex,
    ongoing_branches,
    ongoing_statuses: instance.statuses.filter((s) => keys.has(s.branch_key)),
  };
}

/**
 * Starts a decision when none is ongoing, decisions may run (`decision_mode` is `run`)
 * and there is something to decide (buffered actions, or executions a stopped decision
 * left unrun). Returns the unchanged instance and `request: null` otherwise.
 */
export function tryTriggerDecision(instance: Instance, context: TriggerContext): TriggerResult {
  const pending =
    instance.buffer.length > 0 || instance.decision_current_index < instance.executions.length;
  if (
    instance.state !== 'running' ||
    instance.decision_ongoing ||
    instance.decision_mode !== 'run' ||
    !pending
  ) {
    return { instance, request: null };
  }
  const next = copyInstance(instance, context.now);
  prepare(next);
  next.decision_ongoing = true;
  next.decision_uuid = context.uuid;
  next.decision_triggered_at = context.now;
  return { instance: next, request: currentDecisionRequest(next) };
}

/**
 * Hands the decision in flight out again under a new uuid (its executer was lost).
 * Decisions later received under the old uuid are ignored.
 */
export function redeliverDecision(instance: Instance, context: TriggerContext): TriggerResult {
  if (!instance.decision_ongoing) return { instance, request: null };
  const next = copyInstance(instance, context.now);
  next.decision_uuid = context.uuid;
  return { instance: next, request: currentDecisionRequest(next) };
}
