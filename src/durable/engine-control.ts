/**
 * Operations on an instance from outside: pause (actions keep buffering, no decision
 * starts), resume (decisions start again; after a `modified` stop, the stopped decision
 * is retried with the code now deployed), terminate, and reading status and result.
 * Sending an event is {@link receiveAction} with an `onEvent` action.
 */
import type { ErrorRecord, Json } from '../store/records.js';
import type { Effect } from './effects.js';
import type { EngineResult } from './engine-actions.js';
import type { Instance } from './instance.js';
import { copyInstance, type InstanceLife, lifeOf, moveLife } from './instance-life.js';

/** Stops decisions being triggered. Pausing a paused instance changes nothing. */
export function pauseInstance(instance: Instance, now: number): EngineResult {
  if (lifeOf(instance) === 'paused') return { instance, effects: [] };
  const next = copyInstance(instance, now);
  moveLife(next, 'paused');
  return { instance: next, effects: [] };
}

/**
 * Lets decisions run again (from `paused` or `modified`); call
 * {@link tryTriggerDecision} afterwards. Resuming a running instance changes nothing.
 */
export function resumeInstance(instance: Instance, now: number): EngineResult {
  if (lifeOf(instance) === 'running') return { instance, effects: [] };
  const next = copyInstance(instance, now);
  const wasModified = lifeOf(instance) === 'modified';
  moveLife(next, 'running');
  if (wasModified) next.error = null;
  return { instance: next, effects: [] };
}

/** Ends the instance now: its waits are cancelled and later actions are ignored. */
export function terminateInstance(instance: Instance, now: number): EngineResult {
  const next = copyInstance(instance, now);
  moveLife(next, 'terminated');
  const effects: Effect[] = next.waits.map((w) => ({
    type: 'cancelWait' as const,
    uuid: w.uuid,
    hash: w.hash,
    timed: w.timestamp !== null,
  }));
  next.waits = [];
  next.buffer = [];
  next.decision_ongoing = false;
  next.decision_uuid = null;
  effects.push({ type: 'terminated' });
  return { instance: next, effects };
}

/** A summary of where an instance is. */
export interface InstanceStatus {
  id: string;
  customId: string | null;
  workflow: string;
  life: InstanceLife;
  decisionOngoing: boolean;
  branches: number;
  executions: number;
  /** Works scheduled and not yet finished. */
  pendingWorks: number;
  /** Running waits. */
  waits: number;
  /** Actions waiting for the next decision. */
  buffered: number;
  output: Json;
  error: ErrorRecord | null;
}

/** The instance's status. */
export function instanceStatus(instance: Instance): InstanceStatus {
  return {
    id: instance.id,
    customId: instance.custom_id,
    workflow: instance.workflow_name,
    life: lifeOf(instance),
    decisionOngoing: instance.decision_ongoing,
    branches: instance.branches.length,
    executions: instance.executions.length,
    pendingWorks: instance.statuses.filter((s) => s.status === 'scheduled').length,
    waits: instance.waits.length,
    buffered: instance.buffer.length,
    output: instance.output,
    error: instance.error,
  };
}

/** The instance's result: its output once completed, its error once failed, reverted or terminated. */
export type InstanceResult =
  | { done: false }
  | { done: true; state: 'completed'; output: Json }
  | { done: true; state: 'failed' | 'reverted' | 'terminated'; error: ErrorRecord | null };

/** The instance's result, or `{done: false}` while it runs. */
export function instanceResult(instance: Instance): InstanceResult {
  switch (instance.state) {
    case 'running':
      return { done: false };
    case 'completed':
      return { done: true, state: 'completed', output: instance.output };
    default:
      return { done: true, state: instance.state, error: instance.error };
  }
}
