/**
 * The life of a code-first instance as a small state machine, checked on every move:
 * `running` (decisions run), `paused` (actions buffer, no decision starts), `modified`
 * (the code no longer matches the history; decisions stop until resumed), and the
 * final `completed`, `failed` and `terminated`. An illegal move throws
 * {@link InvalidStateError}. Also the copy-on-write helper every engine function uses.
 */
import { InvalidStateError } from '../core/errors.js';
import type { FlowState } from '../core/states.js';
import type { Instance } from './instance.js';

/** Where an instance is, combining its `state` and `decision_mode`. */
export type InstanceLife =
  | 'running'
  | 'paused'
  | 'modified'
  | 'reverting'
  | 'completed'
  | 'failed'
  | 'reverted'
  | 'terminated';

const MOVES: Readonly<Record<InstanceLife, readonly InstanceLife[]>> = {
  running: ['paused', 'modified', 'reverting', 'completed', 'failed', 'terminated'],
  paused: ['running', 'terminated', 'completed', 'failed'],
  modified: ['running', 'terminated'],
  reverting: ['reverted', 'failed', 'terminated'],
  completed: [],
  failed: [],
  reverted: [],
  terminated: [],
};

/** The instance's life state. */
export function lifeOf(instance: Instance): InstanceLife {
  if (instance.state !== 'running') return instance.state;
  if (instance.decision_mode === 'paused') return 'paused';
  if (instance.decision_mode === 'modified') return 'modified';
  if (instance.decision_mode === 'reverting') return 'reverting';
  return 'running';
}

/**
 * Moves `instance` (a copy the caller owns) to `to`, setting `state` and
 * `decision_mode`. Returns false for a move to the current state.
 */
export function moveLife(instance: Instance, to: InstanceLife): boolean {
  const from = lifeOf(instance);
  if (from === to) return false;
  if (!MOVES[from].includes(to)) {
    throw new InvalidStateError(`durable instance ${instance.id}`, from, to);
  }
  if (to === 'running' || to === 'paused' || to === 'modified' || to === 'reverting') {
    instance.state = 'running';
    instance.decision_mode = to === 'running' ? 'run' : to;
  } else {
    instance.state = to;
    instance.decision_mode = 'terminated';
  }
  return true;
}

/** The job (flow) state a runtime stores for this instance. */
export function flowStateOf(instance: Instance): FlowState {
  switch (lifeOf(instance)) {
    case 'running':
    case 'reverting':
      return 'RUNNING';
    case 'paused':
    case 'modified':
      return 'SUSPENDED';
    case 'completed':
      return 'SUCCESS';
    case 'reverted':
      return 'REVERTED';
    default:
      return 'FAILURE';
  }
}

/**
 * A copy of `instance` whose arrays may be changed freely. Array elements are shared,
 * so replace an element (`arr[i] = { ...arr[i], x }`) rather than mutating it.
 */
export function copyInstance(instance: Instance, now: number): Instance {
  return {
    ...instance,
    branches: [...instance.branches],
    executions: [...instance.executions],
    statuses: [...instance.statuses],
    waits: [...instance.waits],
    properties: [...instance.properties],
    buffer: [...instance.buffer],
    updated_at: Math.max(instance.updated_at, now),
  };
}
