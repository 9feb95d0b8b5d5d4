/**
 * Conformance: schedules — a schedule is written whole and read back as written, listed
 * by name, deleted; the due ones are those not paused whose next tick has come or that
 * hold a tick back; the earliest next tick of those not paused; and a locked schedule
 * holds a second transaction that locks it until the first commits.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SimulatedClock } from '../../../src/core/clock.js';
import type { ScheduleRecord } from '../../../src/store/records.js';
import type { Store } from '../../../src/store/store.js';
import { openTestStore } from '../../support/store-under-test.js';

const T0 = Date.UTC(2026, 0, 1);
let store: Store;
let close: (() => Promise<void>) | undefined;
beforeEach(async () => {
  ({ store, close } = await openTestStore({ clock: new SimulatedClock(T0) }));
});
afterEach(async () => {
  await close?.();
  close = undefined;
});

const schedule = (name: string, patch: Partial<ScheduleRecord> = {}): ScheduleRecord => ({
  name,
  workflow: 'report',
  cron: '0 3 * * *',
  timezone: 'Europe/Berlin',
  input: { region: 'eu', days: [1, 2] },
  overlap: 'skip',
  catchupWindowMs: 60_000,
  paused: false,
  nextAt: T0 + 1000,
  bufferedAt: null,
  lastTickAt: null,
  lastJob: null,
  lastError: null,
  runs: 0,
  skipped: 0,
  source: 'cli',
  createdAt: T0,
  updatedAt: T0,
  ...patch,
});

describe('schedules', () => {
  it('reads a schedule back as written, and a second write replaces every field', async () => {
    await store.putSchedule(schedule('nightly'));
    expect(await store.getSchedule('nightly')).toEqual(schedule('nightly'));
    const moved = schedule('nightly', {
      cron: '*/5 * * * * *',
      paused: true,
      nextAt: null,
      bufferedAt: T0 + 5,
      lastTickAt: T0 + 4,
      lastJob: 'nightly@2026-01-01T00:00:00.004Z',
      lastError: 'tick …: refused',
      runs: 12,
      skipped: 3,
      overlap: 'buffer_one',
      input: null,
      updatedAt: T0 + 9,
    });
    await store.putSchedule(moved);
    expect(await store.getSchedule('nightly')).toEqual(moved);
    expect(await store.getSchedule('weekly')).toBeUndefined();
  });

  it('lists by name and deletes one', async () => {
    await store.putSchedule(schedule('b'));
    await store.putSchedule(schedule('a'));
    expect((await store.listSchedules()).map((s) => s.name)).toEqual(['a', 'b']);
    expect(await store.deleteSchedule('a')).toBe(true);
    expect(await store.deleteSchedule('a')).toBe(false);
    expect((await store.listSchedules()).map((s) => s.name)).toEqual(['b']);
  });

  it('finds the due schedules: next tick come or a tick held back, not paused', async () => {
    await store.putSchedule(schedule('early', { nextAt: T0 + 10 }));
    await store.putSchedule(schedule('late', { nextAt: T0 + 100 }));
    await store.putSchedule(schedule('paused', { nextAt: T0, paused: true }));
    await store.putSchedule(schedule('held', { nextAt: T0 + 500, bufferedAt: T0 }));
    await store.putSchedule(schedule('ended', { nextAt: null }));
    expect(await store.dueSchedules(T0 + 10, 10)).toEqual(['early', 'held']);
    expect(await store.dueSchedules(T0 + 100, 10)).toEqual(['early', 'held', 'late']);
    expect(await store.dueSchedules(T0 + 100, 2)).toEqual(['early', 'held']);
    expect(await store.nextScheduleAt()).toBe(T0 + 10);
    await store.deleteSchedule('early');
    await store.deleteSchedule('late');
    await store.deleteSchedule('held');
    expect(await store.nextScheduleAt()).toBeUndefined();
  });

  it('holds a second locker of a schedule until the first commits', async () => {
    await store.putSchedule(schedule('nightly'));
    const order: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let locked!: () => void;
    const lockedOnce = new Promise<void>((resolve) => {
      locked = resolve;
    });
    const first = store.transaction(async (tx) => {
      const s = await tx.lockSchedule('nightly');
      order.push('first locked');
      locked();
      await held;
      await tx.putSchedule({ ...(s as ScheduleRecord), runs: 1 });
      order.push('first wrote');
    });
    await lockedOnce;
    const second = store.transaction(async (tx) => {
      const s = await tx.lockSchedule('nightly');
      order.push(`second read runs=${s?.runs}`);
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    release();
    await Promise.all([first, second]);
    expect(order).toEqual(['first locked', 'first wrote', 'second read runs=1']);
  });
});
