/**
 * Admission planned in memory: free slots and per-key limits, priority with aging, keys
 * taking turns from the one after the key admitted last, and the rate limiter's burst and
 * spacing.
 */
import { describe, expect, it } from 'vitest';
import { planAdmission } from '../../src/store/queue-admission.js';
import type { QueueItem } from '../../src/store/records.js';

const T = Date.UTC(2026, 0, 1);
const base = {
  concurrency: null,
  keyConcurrency: null,
  rateLimit: null,
  ratePeriodMs: null,
  agingMs: 0,
  rateTat: 0,
  lastKey: null,
};
let seq = 0;
const item = (job: string, key = '', priority = 0, enqueuedAt = T): QueueItem => ({
  job,
  queue: 'q',
  key,
  priority,
  seq: ++seq,
  state: 'waiting',
  enqueuedAt,
  availableAt: enqueuedAt,
  admittedAt: null,
});

describe('planAdmission', () => {
  it('fills the free slots, no more, and no key past its limit', () => {
    const waiting = [item('a1', 'a'), item('a2', 'a'), item('b1', 'b'), item('c1', 'c')];
    const plan = planAdmission(
      { ...base, concurrency: 3, keyConcurrency: 1 },
      waiting,
      [{ key: 'c', running: 1 }],
      T,
    );
    expect(plan.admit).toEqual(['a1', 'b1']);
    expect(plan.lastKey).toBe('b');
  });

  it('takes keys in turn, starting after the key admitted last', () => {
    const waiting = [item('a1', 'a'), item('a2', 'a'), item('b1', 'b'), item('c1', 'c')];
    expect(planAdmission({ ...base, concurrency: 1, lastKey: 'a' }, waiting, [], T).admit).toEqual([
      'b1',
    ]);
    expect(planAdmission({ ...base, concurrency: 1, lastKey: 'c' }, waiting, [], T).admit).toEqual([
      'a1',
    ]);
    expect(planAdmission({ ...base, concurrency: 4 }, waiting, [], T).admit).toEqual([
      'a1',
      'b1',
      'c1',
      'a2',
    ]);
  });

  it('runs lower priorities first; a job waiting agingMs counts as one priority higher per agingMs', () => {
    const old = item('old-low', '', 2, T - 125_000);
    const waiting = [old, item('new-high', '', 0, T)];
    expect(planAdmission({ ...base, concurrency: 1 }, waiting, [], T).admit).toEqual(['new-high']);
    // 125 s at 60 s aging: priority 2 counts as 0; the older goes first.
    expect(
      planAdmission({ ...base, concurrency: 1, agingMs: 60_000 }, waiting, [], T).admit,
    ).toEqual(['old-low']);
  });

  it('lets a burst of the rate limit through, then spaces the rest', () => {
    const waiting = Array.from({ length: 30 }, (_, i) => item(`r${i}`));
    const q = { ...base, rateLimit: 20, ratePeriodMs: 2000 };
    const first = planAdmission(q, waiting, [], T);
    expect(first.admit).toHaveLength(20);
    expect(first.rateWaitUntil).toBe(T + 100);
    // 100 ms later, one more: 20 per 2 s is one per 100 ms.
    const later = planAdmission({ ...q, rateTat: first.rateTat }, waiting.slice(20), [], T + 100);
    expect(later.admit).toEqual(['r20']);
    expect(later.rateWaitUntil).toBe(T + 200);
  });
});
