import { describe, expect, it } from 'vitest';
import { perJobChains } from '../../src/models/per-job-chains.js';

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('perJobChains', () => {
  it("runs one job's items in order and different jobs side by side, starting in job order", async () => {
    const log: string[] = [];
    let running = 0;
    let most = 0;
    await perJobChains(
      [
        { job: 'b', n: 1 },
        { job: 'a', n: 1 },
        { job: 'b', n: 2 },
        { job: 'c', n: 1 },
        { job: 'a', n: 2 },
      ],
      async ({ job, n }) => {
        log.push(`${job}${n} start`);
        running++;
        most = Math.max(most, running);
        await tick();
        running--;
        log.push(`${job}${n} end`);
      },
    );
    // The first items start in job order before any ends; each job's second waits for its first.
    expect(log.slice(0, 3)).toEqual(['a1 start', 'b1 start', 'c1 start']);
    expect(log.indexOf('a2 start')).toBeGreaterThan(log.indexOf('a1 end'));
    expect(log.indexOf('b2 start')).toBeGreaterThan(log.indexOf('b1 end'));
    expect(most).toBe(3);
  });

  it('lets every chain finish before it throws the first failure', async () => {
    const ended: string[] = [];
    const run = perJobChains([{ job: 'a' }, { job: 'b' }], async ({ job }) => {
      if (job === 'a') throw new Error('a broke');
      await tick();
      await tick();
      ended.push(job);
    });
    await expect(run).rejects.toThrow('a broke');
    expect(ended).toEqual(['b']);
  });
});
