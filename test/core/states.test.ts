import { describe, expect, it } from 'vitest';
import { InvalidStateError } from '../../src/core/errors.js';
import {
  CLAIM_STATES,
  canTransition,
  ENGINE_STATES,
  FLOW_STATES,
  isFinalFlowState,
  MACHINES,
  type MachineName,
  RETRY_STATES,
  TASK_STATES,
  transition,
} from '../../src/core/states.js';

/** The legal moves, written by hand from the issue text (seed 003), independent of states.ts. */
const TASK_MOVES = [
  'PENDING>RUNNING',
  'PENDING>IGNORE',
  'RUNNING>SUCCESS',
  'RUNNING>FAILURE',
  'SUCCESS>REVERTING',
  'FAILURE>REVERTING',
  'REVERTING>REVERTED',
  'REVERTING>REVERT_FAILURE',
  'REVERTED>PENDING',
  'IGNORE>PENDING',
];
const LEGAL: Record<MachineName, string[]> = {
  engine: [
    'UNDEFINED>RESUMING',
    'RESUMING>SCHEDULING',
    'SCHEDULING>WAITING',
    'WAITING>ANALYZING',
    'ANALYZING>SCHEDULING',
    'ANALYZING>WAITING',
    'ANALYZING>GAME_OVER',
    'GAME_OVER>SUCCESS',
    'GAME_OVER>FAILURE',
    'GAME_OVER>SUSPENDED',
    'GAME_OVER>REVERTED',
  ],
  flow: [
    'PENDING>RUNNING',
    'RUNNING>SUCCESS',
    'RUNNING>FAILURE',
    'RUNNING>REVERTED',
    'RUNNING>SUSPENDING',
    'RUNNING>RESUMING',
    'SUCCESS>RUNNING',
    'SUCCESS>PENDING',
    'FAILURE>RUNNING',
    'REVERTED>PENDING',
    'SUSPENDING>SUSPENDED',
    'SUSPENDING>SUCCESS',
    'SUSPENDING>FAILURE',
    'SUSPENDING>REVERTED',
    'SUSPENDING>RESUMING',
    'SUSPENDED>RUNNING',
    'RESUMING>SUSPENDED',
  ],
  task: TASK_MOVES,
  retry: [...TASK_MOVES, 'SUCCESS>RETRYING', 'RETRYING>RUNNING'],
  claim: ['UNCLAIMED>CLAIMED', 'CLAIMED>UNCLAIMED', 'CLAIMED>COMPLETE'],
};
const STATES: Record<MachineName, readonly string[]> = {
  engine: ENGINE_STATES,
  flow: FLOW_STATES,
  task: TASK_STATES,
  retry: RETRY_STATES,
  claim: CLAIM_STATES,
};
const FLOW_IDLE = ['PENDING', 'SUCCESS', 'FAILURE', 'REVERTED', 'SUSPENDED'];
const FLOW_SUSPEND = ['SUSPENDING', 'SUSPENDED', 'RESUMING'];

type Expected = 'move' | 'same' | 'ignored' | 'throw';
function expected(machine: MachineName, from: string, to: string): Expected {
  if (from === to) return 'same';
  if (LEGAL[machine].includes(`${from}>${to}`)) return 'move';
  if (machine === 'flow' && FLOW_IDLE.includes(from) && FLOW_SUSPEND.includes(to)) {
    return 'ignored';
  }
  return 'throw';
}

// Loosely typed entry point: the tests feed every pair of strings.
const check = transition as (m: MachineName, f: string, t: string, s?: string) => string;
const can = canTransition as (m: MachineName, f: string, t: string) => boolean;

describe('state machines', () => {
  const machines = Object.keys(MACHINES) as MachineName[];

  it.each(machines)('%s: the table in states.ts is the hand-written list', (machine) => {
    const table = MACHINES[machine] as Record<string, readonly string[]>;
    expect(Object.keys(table).sort()).toEqual([...STATES[machine]].sort());
    const fromTable = Object.entries(table).flatMap(([from, tos]) =>
      tos.map((to) => `${from}>${to}`),
    );
    expect(fromTable.sort()).toEqual([...LEGAL[machine]].sort());
  });

  it.each(machines)('%s: every pair of states does what the list says', (machine) => {
    const states = STATES[machine];
    let pairs = 0;
    for (const from of states) {
      for (const to of states) {
        pairs++;
        const want = expected(machine, from, to);
        if (want === 'throw') {
          let caught: unknown;
          try {
            check(machine, from, to);
          } catch (error) {
            caught = error;
          }
          expect(caught, `${machine} ${from} -> ${to}`).toBeInstanceOf(InvalidStateError);
          expect(caught).toMatchObject({ machine, from, to, code: 'INVALID_STATE' });
          expect(can(machine, from, to)).toBe(false);
        } else {
          expect(check(machine, from, to), `${machine} ${from} -> ${to}`).toBe(want);
          expect(can(machine, from, to)).toBe(want !== 'ignored');
        }
      }
    }
    expect(pairs).toBe(states.length ** 2);
  });

  it('flow: suspend and resume requests on an idle or finished job are ignored', () => {
    expect(transition('flow', 'SUCCESS', 'SUSPENDING')).toBe('ignored');
    expect(transition('flow', 'PENDING', 'RESUMING')).toBe('ignored');
    expect(transition('flow', 'SUSPENDED', 'SUSPENDED')).toBe('same');
    expect(() => transition('flow', 'SUSPENDING', 'PENDING')).toThrow(InvalidStateError);
  });

  it('names the subject and rejects unknown states', () => {
    expect(() => transition('task', 'SUCCESS', 'RUNNING', 'fox')).toThrow(
      expect.objectContaining({ machine: 'task fox', from: 'SUCCESS', to: 'RUNNING' }),
    );
    expect(() => check('claim', 'LOST', 'CLAIMED')).toThrow(/unknown from-state/);
    expect(() => check('claim', 'CLAIMED', 'LOST')).toThrow(/unknown to-state/);
  });

  it('knows which flow states are final', () => {
    expect(FLOW_STATES.filter(isFinalFlowState)).toEqual(['SUCCESS', 'FAILURE', 'REVERTED']);
  });
});
