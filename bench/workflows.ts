/**
 * The benchmark workflows, built as documents and compiled like a user's file.
 */
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

/** `start → fan (spread) → each (no-op task) → gather (collect)`: scenario 7. */
export function spreadCollectWorkflow(): CompiledWorkflow {
  return compileWorkflow({
    workflow: 'bench-spread-collect',
    activities: {
      start: { kind: 'trigger' },
      fan: { kind: 'spread', items: 'input.items' },
      each: { kind: 'task', task: NOOP_TASK },
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
