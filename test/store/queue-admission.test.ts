/**
 * Admission planned in memory: free slots and per-key limits, priority with aging, keys
 * taking turns from the one after the key admitted last, the rate limiter's burst and
 * spacing, a per-key rate that holds one key back while the others go on, the charge a
 * `throttle: drop` queue makes when a start comes, and the histogram of waits.
 */
import { describe, expect, it } from 'vitest';
import type { AdmissionQueue } from '../../src/store/queue-admission.js';
import { chargeRates, planAdmission } from '../../src/store/queue-admission.js';
import type { QueueItem } from '../../src/store/records.js';

const T = Date.UTC(2026, 0, 1);
const base: AdmissionQueue = {
  concurrency: null,
  keyConcurrency: null,
  rateLimit: null,
  ratePeriodMs: null,
  keyRateLimit: null,
  keyRatePeriodMs: null,
  throttle: 'wait',
  agingMs: 0,
  rateTat: 0,
  keyTats: {},
  lastKey: null,
  waits: { count: 0, sumMs: 0, buckets: [] },
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

  it('holds a key past its own rate back while the other keys go on', () => {
    const waiting = [
      ...Array.from({ length: 5 }, (_, i) => item(`a${i}`, 'a')),
      item('b0', 'b'),
      item('b1', 'b'),
    ];
    const q = { ...base, keyRateLimit: 2, keyRatePeriodMs: 1000 };
    const first = planAdmission(q, waiting, [], T);
    // Two per key at once (the burst), then key a waits 500 ms for its next.
    expect(first.admit).toEqual(['a0', 'b0', 'a1', 'b1']);
    expect(first.rateWaitUntil).toBe(T + 500);
    expect(first.keyTats).toEqual({ a: T + 1000, b: T + 1000 });
    const later = planAdmission({ ...q, keyTats: first.keyTats }, waiting.slice(2, 5), [], T + 500);
    expect(later.admit).toEqual(['a2']);
    // Limiters that hold nothing back any more are dropped from the state.
    expect(planAdmission({ ...q, keyTats: { z: T } }, [], [], T + 1).keyTats).toEqual({});
  });

  it('drop: a start is charged to the rates when it comes, refused past them, and admission skips them', () => {
    const q = {
      ...base,
      throttle: 'drop' as const,
      rateLimit: 2,
      ratePeriodMs: 1000,
      keyRateLimit: 1,
      keyRatePeriodMs: 1000,
    };
    const one = chargeRates(q, 'a', T);
    expect(one).toEqual({ rateTat: T + 500, keyTats: { a: T + 1000 } });
    expect(chargeRates({ ...q, ...one }, 'a', T)).toEqual({
      retryAt: T + 1000,
      limit: '1 per 1000 ms for key "a"',
    });
    const two = chargeRates({ ...q, ...one }, 'b', T);
    expect(two).toEqual({ rateTat: T + 1000, keyTats: { a: T + 1000, b: T + 1000 } });
    expect(chargeRates({ ...q, ...two }, 'c', T)).toEqual({
      retryAt: T + 500,
      limit: '2 per 1000 ms',
    });
    // What was charged is admitted by slots alone.
    const waiting = Array.from({ length: 5 }, (_, i) => item(`d${i}`, 'a'));
    expect(planAdmission({ ...q, ...two }, waiting, [], T).admit).toHaveLength(5);
  });

  it('adds the waits of the jobs it admits to the histogram', () => {
    const waiting = [item('w1', '', 0, T - 40), item('w2', '', 0, T - 2_000), item('w3', '', 0, T)];
    const plan = planAdmission(base, waiting, [], T);
    expect(plan.waits.count).toBe(3);
    expect(plan.waits.sumMs).toBe(2_040);
    // Bounds 0.01, 0.05, 0.1, 0.5, 1, 5, …: cumulative counts.
    expect(plan.waits.buckets.slice(0, 6)).toEqual([1, 2, 2, 2, 2, 3]);
    expect(plan.waits.buckets.at(-1)).toBe(3);
  });
});
