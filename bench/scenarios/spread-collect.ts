/**
 * Scenario 7: spread and collect (issue 12). One job spreads N items through one no-op
 * task, each item in its own dimensional thread, and collects them: the time from start
 * to result. {@link runSpread} is shared with scenario 8 (the big spread).
 */
import { BenchError } from '../bench-error.js';
import { JOB_TIMEOUT_MS } from '../drive.js';
import type { Figure, Scenario } from '../scenario.js';
import { perSecond } from '../stats.js';
import type { RunningTarget } from '../targets.js';
import { spreadCollectWorkflow } from '../workflows.js';

/** Runs one spread of `count` items on `target` (after a warm-up of 10) and measures it. */
export async function runSpread(
  target: RunningTarget,
  count: number,
  log: (line: string) => void,
): Promise<Figure[]> {
  const wf = spreadCollectWorkflow();
  await target.client.deploy(wf);
  const items = (n: number) => ({ items: Array.from({ length: n }, (_, i) => i) });
  await target.client.result((await target.client.start(wf.workflow, items(10))).id, {
    wait: true,
    timeoutMs: JOB_TIMEOUT_MS,
  });
  const t0 = performance.now();
  const job = await target.client.start(wf.workflow, items(count));
  // Progress every 30 s: the history's high-water mark (one line per step).
  const progress = setInterval(() => {
    void target.store
      .lastStep()
      .then((step) => log(`${((performance.now() - t0) / 1000).toFixed(0)} s: ${step} steps`))
      .catch(() => undefined);
  }, 30_000);
  let done: Awaited<ReturnType<typeof target.client.result>>;
  try {
    done = await target.client.result(job.id, {
      wait: true,
      timeoutMs: Math.max(10 * JOB_TIMEOUT_MS, count * 20),
    });
  } finally {
    clearInterval(progress);
  }
  const elapsed = performance.now() - t0;
  if (done.state !== 'SUCCESS' || done.output !== count) {
    throw new BenchError(
      'BENCH_JOB_FAILED',
      `spread-collect job ended ${done.state} with ${JSON.stringify(done.output)} collected: ${done.error?.message ?? ''}`,
    );
  }
  const n = count.toLocaleString('en-US');
  return [
    {
      key: 'time',
      label: `${n} items, time to finish`,
      value: elapsed / 1000,
      unit: 's',
      digits: 2,
    },
    { key: 'items', label: `${n} items`, value: perSecond(count, elapsed), unit: 'items/s' },
  ];
}

/** Scenario 7. */
export const spreadCollectScenario: Scenario = {
  number: 7,
  id: 'spread-collect',
  title: 'Spread and collect',
  description:
    'One job: start → spread of N items → one no-op task per item (a thread each, its input the item: `fan.item`) → collect. Time from Client.start to the result; items/s = N / time.',
  available: true,
  notes: (sizes) => [`N = ${sizes.spreadItems.toLocaleString('en-US')}`],
  run: ({ target, sizes, log }) => runSpread(target, sizes.spreadItems, log),
};
