/**
 * Scenario 5: signals. N jobs park on a hook; each is signalled in turn and the time from
 * Client.signal to the job's end is measured (p50/p99). Then N more park and are all
 * signalled at once: the time until all have ended.
 */
import { BenchError } from '../bench-error.js';
import { assertParked, forEachConcurrently, JOB_TIMEOUT_MS, waitUntilDrained } from '../drive.js';
import type { Scenario } from '../scenario.js';
import { percentile, perSecond } from '../stats.js';
import type { RunningTarget } from '../targets.js';
import { HOOK_SIGNAL, hookWorkflow } from '../workflows.js';

async function park(target: RunningTarget, workflow: string, count: number): Promise<string[]> {
  const ids: string[] = new Array(count);
  await forEachConcurrently(count, 32, async (i) => {
    ids[i] = (await target.client.start(workflow, {})).id;
  });
  await waitUntilDrained(target.store, JOB_TIMEOUT_MS);
  await assertParked(target.client, ids[count - 1] as string, 'wait');
  return ids;
}

async function signalAndWait(target: RunningTarget, id: string): Promise<number> {
  const t0 = performance.now();
  await target.client.signal(id, HOOK_SIGNAL, { ok: true });
  const done = await target.client.result(id, { wait: true, timeoutMs: JOB_TIMEOUT_MS });
  if (done.state !== 'SUCCESS') {
    throw new BenchError('BENCH_JOB_FAILED', `signalled job ${id} ended ${done.state}`);
  }
  return performance.now() - t0;
}

/** Scenario 5. */
export const signalsScenario: Scenario = {
  number: 5,
  id: 'signals',
  title: 'Signals',
  description:
    'start → wait (a hook on signal "go"). N jobs are started and left to park; then each is signalled in turn and Client.result waited for: signal → job end p50/p99. Then N more park and all are signalled at once (50 signals in flight): time until all ended, as signals/s.',
  available: true,
  notes: (sizes) => [
    `N = ${sizes.signalJobs}; each phase stops signalling after ${sizes.latencyBudgetMs / 1000} s (the figures count what ran)`,
  ],
  async run({ target, sizes }) {
    const wf = hookWorkflow();
    await target.client.deploy(wf);
    const ids = await park(target, wf.workflow, sizes.signalJobs);
    const latencies: number[] = [];
    const deadline = performance.now() + sizes.latencyBudgetMs;
    for (const id of ids) {
      if (performance.now() > deadline) break;
      latencies.push(await signalAndWait(target, id));
    }
    const burst = await park(target, wf.workflow, sizes.signalJobs);
    const t0 = performance.now();
    let signalled = 0;
    await forEachConcurrently(burst.length, 50, async (i) => {
      if (performance.now() - t0 > sizes.latencyBudgetMs) return;
      await signalAndWait(target, burst[i] as string);
      signalled++;
    });
    const burstMs = performance.now() - t0;
    return [
      {
        key: 'signalled',
        label: 'one at a time: jobs signalled',
        value: latencies.length,
        unit: 'jobs',
        digits: 0,
      },
      {
        key: 'p50',
        label: 'one at a time: signal → end p50',
        value: percentile(latencies, 50),
        unit: 'ms',
        digits: 2,
      },
      {
        key: 'p99',
        label: 'one at a time: signal → end p99',
        value: percentile(latencies, 99),
        unit: 'ms',
        digits: 2,
      },
      {
        key: 'burst',
        label: 'all at once',
        value: perSecond(signalled, burstMs),
        unit: 'signals/s',
      },
    ];
  },
};
