/**
 * A schedule's firing, planned: the ticks due since its next tick, those too late for the
 * catch-up window, and each overlap policy with and without a running job.
 */
import { describe, expect, it } from 'vitest';
import { CronTimes } from '../../src/core/cron.js';
import { planTicks } from '../../src/models/schedule-plan.js';
import type { OverlapPolicy } from '../../src/store/records.js';

const minute = new CronTimes('* * * * *');
const T = Date.UTC(2026, 10, 26, 3, 0);
const M = 60_000;

const schedule = (
  overlap: OverlapPolicy,
  nextAt: number | null = T,
  bufferedAt: number | null = null,
) => ({
  nextAt,
  bufferedAt,
  lastTickAt: null,
  overlap,
  catchupWindowMs: 10 * M,
});

describe('planTicks', () => {
  it('starts the one due tick and waits for the next', () => {
    expect(planTicks(schedule('skip'), minute, T + 5_000, false)).toEqual({
      start: [T],
      cancelRunning: false,
      bufferedAt: null,
      skipped: 0,
      lastTickAt: T,
      nextAt: T + M,
    });
  });

  it('does nothing before the next tick', () => {
    expect(planTicks(schedule('skip'), minute, T - 1, false)).toMatchObject({
      start: [],
      skipped: 0,
      nextAt: T,
      lastTickAt: null,
    });
  });

  it('skips ticks older than the catch-up window', () => {
    // Down for 30 minutes: ticks T..T+30; the window keeps T+20..T+30.
    const plan = planTicks(schedule('allow_all'), minute, T + 30 * M, false);
    expect(plan.start).toEqual(Array.from({ length: 11 }, (_, i) => T + (20 + i) * M));
    expect(plan.skipped).toBe(20);
    expect(plan.nextAt).toBe(T + 31 * M);
  });

  it('skip: starts only the newest due tick, and none while the last job runs', () => {
    expect(planTicks(schedule('skip'), minute, T + 2 * M, false)).toMatchObject({
      start: [T + 2 * M],
      skipped: 2,
    });
    expect(planTicks(schedule('skip'), minute, T + 2 * M, true)).toMatchObject({
      start: [],
      skipped: 3,
    });
  });

  it('buffer_one: holds the newest tick while the job runs, and starts the held one after', () => {
    const held = planTicks(schedule('buffer_one'), minute, T + M, true);
    expect(held).toMatchObject({ start: [], bufferedAt: T + M, skipped: 1 });
    // The job ended; nothing new is due: the held tick starts.
    expect(
      planTicks(schedule('buffer_one', T + 2 * M, T + M), minute, T + M + 30_000, false),
    ).toMatchObject({
      start: [T + M],
      bufferedAt: null,
      skipped: 0,
    });
    // The job ended and two more ticks came: the held one starts, the newest is held.
    expect(
      planTicks(schedule('buffer_one', T + 2 * M, T + M), minute, T + 3 * M, false),
    ).toMatchObject({
      start: [T + M],
      bufferedAt: T + 3 * M,
      skipped: 1,
    });
  });

  it('allow_all: starts every due tick, running job or not', () => {
    expect(planTicks(schedule('allow_all'), minute, T + 2 * M, true)).toMatchObject({
      start: [T, T + M, T + 2 * M],
      skipped: 0,
    });
  });

  it('cancel_other: cancels a running job and starts the newest tick', () => {
    expect(planTicks(schedule('cancel_other'), minute, T + M, true)).toMatchObject({
      start: [T + M],
      cancelRunning: true,
      skipped: 1,
    });
    expect(planTicks(schedule('cancel_other'), minute, T, false)).toMatchObject({
      start: [T],
      cancelRunning: false,
    });
  });

  it('handles at most 100 ticks a firing, leaving the rest due', () => {
    const second = new CronTimes('* * * * * *');
    const plan = planTicks(
      { ...schedule('allow_all'), catchupWindowMs: 3_600_000 },
      second,
      T + 1_000_000,
      false,
    );
    expect(plan.start).toHaveLength(100);
    expect(plan.nextAt).toBe(T + 100_000);
  });
});
