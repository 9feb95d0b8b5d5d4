/**
 * Explicit state machines, as OpenStack TaskFlow defines them (seed 003): the engine,
 * the flow (a weft job), the task (an activity), the retry and the claim (a unit of work
 * on a stream). Every state change in weft goes through {@link transition}, which throws
 * {@link InvalidStateError} naming the machine and both states on an illegal move.
 */
import { InvalidStateError } from './errors.js';

/** States of the engine that drives one job. */
export const ENGINE_STATES = [
  'UNDEFINED',
  'RESUMING',
  'SCHEDULING',
  'WAITING',
  'ANALYZING',
  'GAME_OVER',
  'SUCCESS',
  'FAILURE',
  'SUSPENDED',
  'REVERTED',
] as const;
/** An engine state. */
export type EngineState = (typeof ENGINE_STATES)[number];

/** States of a flow, which in weft is a job. */
export const FLOW_STATES = [
  'PENDING',
  'RUNNING',
  'SUCCESS',
  'FAILURE',
  'REVERTED',
  'SUSPENDING',
  'SUSPENDED',
  'RESUMING',
] as const;
/** A flow (job) state. */
export type FlowState = (typeof FLOW_STATES)[number];

/** States of a task, which in weft is an activity. */
export const TASK_STATES = [
  'PENDING',
  'RUNNING',
  'SUCCESS',
  'FAILURE',
  'REVERTING',
  'REVERTED',
  'REVERT_FAILURE',
  'IGNORE',
] as const;
/** A task (activity) state. */
export type TaskState = (typeof TASK_STATES)[number];

/** States of a retry controller: a task's states plus RETRYING. */
export const RETRY_STATES = [...TASK_STATES, 'RETRYING'] as const;
/** A retry state. */
export type RetryState = (typeof RETRY_STATES)[number];

/** States of a claim on a unit of work. */
export const CLAIM_STATES = ['UNCLAIMED', 'CLAIMED', 'COMPLETE'] as const;
/** A claim state. */
export type ClaimState = (typeof CLAIM_STATES)[number];

type Table<S extends string> = Readonly<Record<S, readonly S[]>>;

/** Legal engine moves. */
export const ENGINE_TRANSITIONS: Table<EngineState> = {
  UNDEFINED: ['RESUMING'],
  RESUMING: ['SCHEDULING'],
  SCHEDULING: ['WAITING'],
  WAITING: ['ANALYZING'],
  ANALYZING: ['SCHEDULING', 'WAITING', 'GAME_OVER'],
  GAME_OVER: ['SUCCESS', 'FAILURE', 'SUSPENDED', 'REVERTED'],
  SUCCESS: [],
  FAILURE: [],
  SUSPENDED: [],
  REVERTED: [],
};

/** Legal flow (job) moves. */
export const FLOW_TRANSITIONS: Table<FlowState> = {
  PENDING: ['RUNNING'],
  RUNNING: ['SUCCESS', 'FAILURE', 'REVERTED', 'SUSPENDING', 'RESUMING'],
  SUCCESS: ['RUNNING', 'PENDING'],
  FAILURE: ['RUNNING'],
  REVERTED: ['PENDING'],
  SUSPENDING: ['SUSPENDED', 'SUCCESS', 'FAILURE', 'REVERTED', 'RESUMING'],
  SUSPENDED: ['RUNNING'],
  RESUMING: ['SUSPENDED'],
};

/** Legal task (activity) moves. */
export const TASK_TRANSITIONS: Table<TaskState> = {
  PENDING: ['RUNNING', 'IGNORE'],
  RUNNING: ['SUCCESS', 'FAILURE'],
  SUCCESS: ['REVERTING'],
  FAILURE: ['REVERTING'],
  REVERTING: ['REVERTED', 'REVERT_FAILURE'],
  REVERTED: ['PENDING'],
  REVERT_FAILURE: [],
  IGNORE: ['PENDING'],
};

/** Legal retry moves: a task's, plus SUCCESS→RETRYING and RETRYING→RUNNING. */
export const RETRY_TRANSITIONS: Table<RetryState> = {
  ...TASK_TRANSITIONS,
  SUCCESS: [...TASK_TRANSITIONS.SUCCESS, 'RETRYING'],
  RETRYING: ['RUNNING'],
};

/** Legal claim moves. */
export const CLAIM_TRANSITIONS: Table<ClaimState> = {
  UNCLAIMED: ['CLAIMED'],
  CLAIMED: ['UNCLAIMED', 'COMPLETE'],
  COMPLETE: [],
};

/** The machines, by name. */
export const MACHINES = {
  engine: ENGINE_TRANSITIONS,
  flow: FLOW_TRANSITIONS,
  task: TASK_TRANSITIONS,
  retry: RETRY_TRANSITIONS,
  claim: CLAIM_TRANSITIONS,
} as const;

/** A machine's name. */
export type MachineName = keyof typeof MACHINES;
type StateOf<M extends MachineName> = keyof (typeof MACHINES)[M] & string;

/** Flow states from which a job is finished or idle. */
const FLOW_IDLE: readonly FlowState[] = ['PENDING', 'SUCCESS', 'FAILURE', 'REVERTED', 'SUSPENDED'];
/** Flow states a suspend/resume request moves to. */
const FLOW_SUSPEND_TARGETS: readonly FlowState[] = ['SUSPENDING', 'SUSPENDED', 'RESUMING'];

/** What {@link transition} decided: move, stay (same state), or ignore (TaskFlow's idle rule). */
export type TransitionOutcome = 'move' | 'same' | 'ignored';

/**
 * Checks a move on a machine. Returns `'move'` when legal, `'same'` for a move to the
 * current state (a no-op), `'ignored'` for a flow suspend/resume request from an idle or
 * finished state (as TaskFlow does), and throws {@link InvalidStateError} otherwise.
 */
export function transition<M extends MachineName>(
  machine: M,
  from: StateOf<M>,
  to: StateOf<M>,
  subject?: string,
): TransitionOutcome {
  const table = MACHINES[machine] as Table<string>;
  const label = subject ? `${machine} ${subject}` : machine;
  if (!(from in table)) throw new InvalidStateError(label, from, to, 'unknown from-state');
  if (!(to in table)) throw new InvalidStateError(label, from, to, 'unknown to-state');
  if (from === to) return 'same';
  if ((table[from] ?? []).includes(to)) return 'move';
  if (
    machine === 'flow' &&
    FLOW_IDLE.includes(from as FlowState) &&
    FLOW_SUSPEND_TARGETS.includes(to as FlowState)
  ) {
    return 'ignored';
  }
  throw new InvalidStateError(label, from, to);
}

/** True when a move is legal (or a same-state no-op), without throwing. */
export function canTransition<M extends MachineName>(
  machine: M,
  from: StateOf<M>,
  to: StateOf<M>,
): boolean {
  try {
    return transition(machine, from, to) !== 'ignored';
  } catch {
    return false;
  }
}

/** Flow states in which a job has ended. */
export const FLOW_FINAL_STATES: readonly FlowState[] = ['SUCCESS', 'FAILURE', 'REVERTED'];

/** Flow states in which a job has not ended yet (the rest of {@link FLOW_STATES}). */
export const UNFINISHED_FLOW_STATES: readonly FlowState[] = FLOW_STATES.filter(
  (s) => !FLOW_FINAL_STATES.includes(s),
);

/** True when a job in this state has ended. */
export function isFinalFlowState(state: FlowState): boolean {
  return FLOW_FINAL_STATES.includes(state);
}

/** What an activity record stores: a task's state, or a retry controller's. */
export type ActivityState = RetryState;

/** True when `state` is a state of the task or the retry machine. */
export function isActivityState(state: string): state is ActivityState {
  return (RETRY_STATES as readonly string[]).includes(state);
}

/**
 * Checks a move of an activity record on the task machine (`retry` for a retry
 * controller's record). `reset` is TaskFlow's `reset()`: any atom may be set back to
 * PENDING (an operator's requeue of a dead letter does it); nothing else bypasses the
 * machine. Throws {@link InvalidStateError} on an illegal move.
 */
export function activityMove(
  machine: 'task' | 'retry',
  from: ActivityState,
  to: ActivityState,
  subject?: string,
  options: { reset?: boolean } = {},
): TransitionOutcome {
  if (options.reset && to === 'PENDING' && isActivityState(from)) {
    return from === to ? 'same' : 'move';
  }
  if (machine === 'task' && (from === 'RETRYING' || to === 'RETRYING')) {
    throw new InvalidStateError(
      subject ? `task ${subject}` : 'task',
      from,
      to,
      'RETRYING is a retry state',
    );
  }
  return transition(machine, from as never, to as never, subject);
}
