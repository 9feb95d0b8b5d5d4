/**
 * Scenario 8: one big job. Scenario 7's workflow with 100,000 items: a step's cost must
 * not grow with the number of threads, or this never finishes (issue 18: it did 10,000
 * steps in 2 min and 40,000 in 11.5 min before).
 */
import type { Scenario } from '../scenario.js';
import { runSpread } from './spread-collect.js';

/** Scenario 8. */
export const bigSpreadScenario: Scenario = {
  number: 8,
  id: 'big-spread',
  title: 'One big spread',
  description:
    'Scenario 7 with many more items: one job spreads N items through a no-op task (its input the item) and collects them. Time from Client.start to the result; items/s = N / time.',
  available: true,
  repetitions: (sizes) => sizes.bigSpreadRuns,
  notes: (sizes) => [
    `N = ${sizes.bigSpreadItems.toLocaleString('en-US')}, ${sizes.bigSpreadRuns} repetition${sizes.bigSpreadRuns === 1 ? '' : 's'}`,
  ],
  run: ({ target, sizes, log }) => runSpread(target, sizes.bigSpreadItems, log),
};
