/**
 * Scenario 7: spread and collect (issue 12). One job spreads N items through one no-op
 * task, each item in its own dimensional thread, and collects them: the time from start
 * to result.
 */
import { BenchError } from '../bench-error.js';
import { JOB_TIMEOUT_MS } from '../drive.js';
import type { Scenario } from '../scenario.js';
import { perSecond } from '../stats.js';
import { spreadCollectWorkflow } from '../workflows.js';

/** Scenario 7. */
export const spreadCollectScenario: Scenario = {
  number: 7,
  id: 'spread-collect',
  title: 'Spread and collect',
  description:
    'One job: start → spread of N items → one no-op task per item (a thread each) → collect. Time from Client.start to the result; items/s = N / time.',
  available: true,
  notes: (sizes) => [`N = ${sizes.spreadItems}`],
  async run({ target, sizes }) {
    const wf = spreadCollectWorkflow();
    await target.client.deploy(wf);
    const items = (n: number) => ({ items: Array.from({ length: n }, (_, i) => i) });
    await target.client.result((await target.client.start(wf.workflow, items(10))).id, {
      wait: true,
      timeoutMs: JOB_TIMEOUT_MS,
    });
    const t0 = performance.now();
    const job = await target.client.start(wf.workflow, items(sizes.spreadItems));
    const done = await target.client.result(job.id, { wait: true, timeoutMs: 10 * JOB_TIMEOUT_MS });
    const elapsed = performance.now() - t0;
    if (done.state !== 'SUCCESS' || done.output !== sizes.spreadItems) {
      throw new BenchError(
        'BENCH_JOB_FAILED',
        `spread-collect job ended ${done.state} with ${JSON.stringify(done.output)} collected: ${done.error?.message ?? ''}`,
      );
    }
    return [
      {
        key: 'time',
        label: `${sizes.spreadItems} items, time to finish`,
        value: elapsed / 1000,
        unit: 's',
        digits: 2,
      },
      {
        key: 'items',
        label: `${sizes.spreadItems} items`,
        value: perSecond(sizes.spreadItems, elapsed),
        unit: 'items/s',
      },
    ];
  },
};
