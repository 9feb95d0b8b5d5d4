/**
 * Scenario 9: compile time. A workflow file of N activities (YAML text: a chain of tasks
 * whose `input` and `when` read the one before, every tenth a scope of two) is compiled
 * and validated as `weft validate` and `weft run` do, three times; the median. It needs no
 * store: it runs in the driver's process whatever the target.
 */
import { compileWorkflow } from '../../src/engine/compiler.js';
import type { Scenario } from '../scenario.js';
import { median } from '../stats.js';
import { largeWorkflowText } from '../workflows.js';

/** Scenario 9. */
export const compileScenario: Scenario = {
  number: 9,
  id: 'compile',
  title: 'Compile a large workflow',
  description:
    'A workflow file of N activities (a chain of tasks, each reading the one before in its input and its transition’s when; every tenth a scope of two tasks) compiled from YAML text, as `weft validate` does: the median of 3 compiles, in the driver’s process (no store involved).',
  available: true,
  notes: (sizes) => [`N = ${sizes.compileActivities.toLocaleString('en-US')} activities`],
  async run({ sizes }) {
    const text = largeWorkflowText(sizes.compileActivities);
    const times: number[] = [];
    for (let i = 0; i < 3; i++) {
      const t0 = performance.now();
      compileWorkflow(text, { source: 'large.yaml' });
      times.push(performance.now() - t0);
    }
    return [
      {
        key: 'time',
        label: `${sizes.compileActivities.toLocaleString('en-US')} activities, compile`,
        value: median(times) / 1000,
        unit: 's',
        digits: 2,
      },
    ];
  },
};
