/**
 * Compiling grows linearly with the workflow: eight times the activities costs about
 * eight times the work, not sixty-four (the name checks once built every top-level id's
 * set per expression, the loop check filtered every transition per activity, and YAML
 * keys were compared with every earlier key of their map). Speed itself is measured by
 * `npm run bench -- --only compile`; this only compares two sizes, with a wide margin.
 */
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { compileWorkflow } from '../../src/engine/compiler.js';

/**
 * `n` tasks fanned out from the trigger and joined by one more, each tenth with a `when`,
 * and a scope: the structure checks dominate (expressions cost the same per activity at
 * any size).
 */
function workflowText(n: number): string {
  const pad = (i: number) => String(i).padStart(5, '0');
  const activities: Record<string, unknown> = {
    start: { kind: 'trigger' },
    join: { kind: 'task', task: 'work' },
    wrap: {
      kind: 'scope',
      activities: { one: { kind: 'task' }, two: { kind: 'task', input: 'one.output' } },
      transitions: { one: ['two'] },
    },
  };
  const transitions: Record<string, unknown[]> = { start: ['wrap'], wrap: ['join'] };
  for (let i = 1; i <= n; i++) {
    const id = `p${pad(i)}`;
    activities[id] = { kind: 'task', task: 'work' };
    transitions.start?.push(i % 10 === 0 ? { to: id, when: `${i} > 0` } : id);
    transitions[id] = ['join'];
  }
  return stringify({ workflow: 'big', activities, transitions });
}

/** The least CPU time of a few compiles of `text`, in microseconds. */
function cpuOf(text: string): number {
  let best = Number.POSITIVE_INFINITY;
  for (let run = 0; run < 2; run++) {
    const before = process.cpuUsage();
    compileWorkflow(text, { source: 'big.yaml' });
    const used = process.cpuUsage(before);
    best = Math.min(best, used.user + used.system);
  }
  return best;
}

describe('compiling a large workflow', () => {
  it('costs about eight times as much for eight times the activities', () => {
    const small = workflowText(500);
    const large = workflowText(4000);
    compileWorkflow(small, { source: 'big.yaml' });
    const compiled = compileWorkflow(large, { source: 'big.yaml' });
    expect(compiled.order.length).toBe(4005);
    // Linear is 8; quadratic would be 64. The margin absorbs a busy machine.
    expect(cpuOf(large) / cpuOf(small)).toBeLessThan(24);
  });
});
