/**
 * A thousand works, one after the other and all at once, run to the end in the
 * simulator. Replaying history makes each decision cost grow with the history, so the
 * total is quadratic; these tests count the operations replay performs (not time) to
 * show it stays that way and does not become cubic.
 */
import { describe, expect, it } from 'vitest';
import { defineTask, defineWorkflow, Workflow } from '../../src/durable/index.js';
import { Simulator } from './support/simulator.js';

const N = 1_000;
const step = defineTask('step', async (i: number) => i);
const counters = { sequential: 0, parallel: 0 };

const sequential = defineWorkflow(
  'sequential',
  class extends Workflow {
    async handle(n: number) {
      let sum = 0;
      for (let i = 0; i < n; i++) {
        counters.sequential++;
        sum += await this.execute(step, i);
      }
      return sum;
    }
  },
);

const parallel = defineWorkflow(
  'parallel',
  class extends Workflow {
    async handle(n: number) {
      counters.parallel++;
      const calls = Array.from({ length: n }, (_, i) => [step, i] as const);
      const outputs = await this.execute(...calls);
      return outputs.reduce((a, b) => a + b, 0);
    }
  },
);

const expectedSum = (N * (N - 1)) / 2;

describe('a thousand works', () => {
  it('sequential tasks run to the end', async () => {
    const sim = new Simulator({ workflows: [sequential], tasks: [step] });
    const started = performance.now();
    const id = sim.start(sequential, [N]);
    await sim.run();
    const ms = Math.round(performance.now() - started);
    const instance = sim.instance(id);
    expect(instance.output).toBe(expectedSum);
    expect(instance.statuses).toHaveLength(N);
    // handle runs once at the start (1 call) and once per completion k: k replayed calls
    // plus the next one (none after the last): 1 + sum(k+1, k<n) + n = n(n-1)/2 + 2n.
    expect(counters.sequential).toBe((N * (N - 1)) / 2 + 2 * N);
    console.info(`sequential ${N}: ${sim.requests.length} decisions, ${ms} ms`);
  });

  it('parallel tasks run to the end', async () => {
    const sim = new Simulator({ workflows: [parallel], tasks: [step] });
    const started = performance.now();
    const id = sim.start(parallel, [N]);
    await sim.run();
    const ms = Math.round(performance.now() - started);
    const instance = sim.instance(id);
    expect(instance.output).toBe(expectedSum);
    expect(instance.statuses).toHaveLength(N);
    // handle runs once at the start and once per completion: each run checks n works.
    expect(counters.parallel).toBe(N + 1);
    console.info(`parallel ${N}: ${sim.requests.length} decisions, ${ms} ms`);
  });
});
