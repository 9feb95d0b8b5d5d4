/**
 * The benchmark workflows, built as documents and compiled like a user's file.
 */
import { stringify } from 'yaml';
import { compileWorkflow } from '../src/engine/compiler.js';
import type { CompiledWorkflow } from '../src/engine/kinds/index.js';
import { NOOP_TASK } from './bench-handlers.js';

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}

/** `start → s01 → … → sNN`: `steps` no-op tasks in a line (scenario 1). */
export function linearWorkflow(steps: number): CompiledWorkflow {
  const activities: Record<string, unknown> = { start: { kind: 'trigger' } };
  const transitions: Record<string, string[]> = {};
  let previous = 'start';
  for (let i = 1; i <= steps; i++) {
    const id = `s${pad(i, 2)}`;
    activities[id] = { kind: 'task', task: NOOP_TASK };
    transitions[previous] = [id];
    previous = id;
  }
  return compileWorkflow({ workflow: `bench-linear-${steps}`, activities, transitions });
}

/** `start → p0000 … p(N-1) → join`: N no-op tasks in parallel, joined by one more (scenario 3). */
export function fanOutWorkflow(tasks: number): CompiledWorkflow {
  const activities: Record<string, unknown> = {
    start: { kind: 'trigger' },
    join: { kind: 'task', task: NOOP_TASK },
  };
  const transitions: Record<string, string[]> = { start: [] };
  for (let i = 0; i < tasks; i++) {
    const id = `p${pad(i, 4)}`;
    activities[id] = { kind: 'task', task: NOOP_TASK };
    transitions.start?.push(id);
    transitions[id] = ['join'];
  }
  return compileWorkflow({ workflow: `bench-fan-out-${tasks}`, activities, transitions });
}

/**
 * `start → fan (spread) → each (no-op task of its item) → gather (collect)`: scenarios 7
 * and 8. Each task gets its own item (`fan.item`), as docs/workflows.md writes a spread: a
 * task with no `input:` gets the whole job input, so N items would each carry all N.
 */
export function spreadCollectWorkflow(): CompiledWorkflow {
  return compileWorkflow({
    workflow: 'bench-spread-collect',
    activities: {
      start: { kind: 'trigger' },
      fan: { kind: 'spread', items: 'input.items' },
      each: { kind: 'task', task: NOOP_TASK, input: 'fan.item' },
      gather: { kind: 'collect' },
    },
    transitions: { start: ['fan'], fan: ['each'], each: ['gather'] },
    output: '$count(gather.output)',
  });
}

/** `start → only`: one no-op task (scenario 4). */
export function oneStepWorkflow(): CompiledWorkflow {
  return linearWorkflow(1);
}

/** The signal the hook workflow waits for. */
export const HOOK_SIGNAL = 'go';

/** `start → wait`: a hook that waits for the `go` signal, then the job ends (scenarios 5, 6). */
export function hookWorkflow(): CompiledWorkflow {
  return compileWorkflow({
    workflow: 'bench-hook',
    activities: { start: { kind: 'trigger' }, wait: { kind: 'hook', signal: HOOK_SIGNAL } },
    transitions: { start: ['wait'] },
  });
}

/** `start → nap`: a sleep of a day (scenario 6, parked on a timer). */
export function longSleepWorkflow(): CompiledWorkflow {
  return compileWorkflow({
    workflow: 'bench-sleep',
    activities: { start: { kind: 'trigger' }, nap: { kind: 'sleep', duration: '1d' } },
    transitions: { start: ['nap'] },
  });
}

/**
 * A workflow file of `n` activities as YAML text (scenario 9): a chain of tasks, each
 * reading the one before in its `input` and its transition's `when`, with every tenth a
 * scope of two tasks — expressions, scopes and the graph checks all grow with it.
 */
export function largeWorkflowText(n: number): string {
  const activities: Record<string, unknown> = { start: { kind: 'trigger' } };
  const transitions: Record<string, unknown[]> = {};
  let previous = 'start';
  let count = 1;
  for (let i = 1; count < n; i++) {
    const id = `a${pad(i, 5)}`;
    if (i % 10 === 0 && count + 3 <= n) {
      activities[id] = {
        kind: 'scope',
        activities: {
          one: { kind: 'task', task: NOOP_TASK, input: `${previous}.output` },
          two: { kind: 'task', task: NOOP_TASK, input: 'one.output' },
        },
        transitions: { one: ['two'] },
        output: 'two.output',
      };
      count += 3;
    } else {
      activities[id] = { kind: 'task', task: NOOP_TASK, input: `{ 'x': ${previous}.output }` };
      count += 1;
    }
    transitions[previous] = [{ to: id, when: `${previous}.status = 'SUCCESS'` }];
    previous = id;
  }
  return stringify({ workflow: `bench-large-${n}`, activities, transitions });
}
