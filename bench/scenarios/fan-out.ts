/**
 * Scenario 3: fan-out/fan-in. One job whose trigger fans out to N parallel no-op tasks,
 * all joined by one more task: the time from start to result.
 */
import { BenchError } from '../bench-error.js';
import { JOB_TIMEOUT_MS } from '../drive.js';
import type { Scenario } from '../scenario.js';
import { perSecond } from '../stats.js';
import { fanOutWorkflow } from '../workflows.js';

/** Scenario 3. */
export const fanOutScenario: Scenario = {
  number: 3,
  id: 'fan-out',
  title: 'Fan-out/fan-in',
  description:
    'One job: start → N parallel no-op tasks → one join task (join: all). Time from Client.start to the result; tasks/s = (N + 1) / time.',
  available: true,
  notes: (sizes) => [`N = ${sizes.fanOutTasks}`],
  async run({ target, sizes }) {
    const warm = fanOutWorkflow(10);
    await target.client.deploy(warm);
    const wf = fanOutWorkflow(sizes.fanOutTasks);
    await target.client.deploy(wf);
    await target.client.result((await target.client.start(warm.workflow, {})).id, {
      wait: true,
      timeoutMs: JOB_TIMEOUT_MS,
    });
    const t0 = performance.now();
    const job = await target.client.start(wf.workflow, {});
    const done = await target.client.result(job.id, { wait: true, timeoutMs: 10 * JOB_TIMEOUT_MS });
    const elapsed = performance.now() - t0;
    if (done.state !== 'SUCCESS') {
      throw new BenchError(
        'BENCH_JOB_FAILED',
        `fan-out job ended ${done.state}: ${done.error?.message}`,
      );
    }
    const steps = sizes.fanOutTasks + 1;
    return [
      {
        key: 'time',
        label: `${sizes.fanOutTasks} tasks, time to finish`,
        value: elapsed / 1000,
        unit: 's',
        digits: 2,
      },
      {
        key: 'steps',
        label: `${sizes.fanOutTasks} tasks + join`,
        value: perSecond(steps, elapsed),
        unit: 'steps/s',
        ratio: 'parallel',
      },
    ];
  },
};
