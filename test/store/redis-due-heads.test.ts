/**
 * What a claim over a Redis Cluster's partitions remembers of each partition's stream
 * heads (src/store/redis/due-heads.ts): it reads a partition again when something there
 * may have become claimable — its time came, a notice said so, or its reading got old —
 * and never trusts a reading of a stream whose notices it does not hear.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DueHeads, MAX_AGE_MS } from '../../src/store/redis/due-heads.js';

const ALL = [0, 1, 2, 3];

afterEach(() => {
  vi.useRealTimers();
});

describe('DueHeads', () => {
  it('reads every partition of a stream it does not hear', () => {
    const heads = new DueHeads(4);
    heads.saw('engine', 1, Number.POSITIVE_INFINITY, heads.mark('engine'));
    expect(heads.toRead('engine', ALL, 1_000)).toEqual(ALL);
  });

  it('skips a partition until the time it saw there comes', () => {
    const heads = new DueHeads(4);
    heads.listening('engine', true);
    expect(heads.toRead('engine', ALL, 1_000)).toEqual(ALL);
    const mark = heads.mark('engine');
    heads.saw('engine', 0, Number.POSITIVE_INFINITY, mark);
    heads.saw('engine', 1, 1_500, mark);
    heads.saw('engine', 2, 1_000, mark);
    expect(heads.toRead('engine', ALL, 1_000)).toEqual([2, 3]);
    expect(heads.toRead('engine', ALL, 1_500)).toEqual([1, 2, 3]);
    // Another stream is its own.
    expect(heads.toRead('work', ALL, 1_000)).toEqual(ALL);
  });

  it('reads a partition again after a notice for it, or for the whole stream', () => {
    const heads = new DueHeads(4);
    heads.listening('engine', true);
    for (const p of ALL) heads.saw('engine', p, Number.POSITIVE_INFINITY, heads.mark('engine'));
    expect(heads.toRead('engine', ALL, 1_000)).toEqual([]);
    heads.touch('engine', 3);
    expect(heads.toRead('engine', ALL, 1_000)).toEqual([3]);
    heads.touch('engine');
    expect(heads.toRead('engine', ALL, 1_000)).toEqual(ALL);
  });

  it('lets a notice heard while a read was on its way win over what the read found', () => {
    const heads = new DueHeads(4);
    heads.listening('engine', true);
    const mark = heads.mark('engine');
    heads.touch('engine', 1);
    heads.saw('engine', 0, Number.POSITIVE_INFINITY, mark);
    heads.saw('engine', 1, Number.POSITIVE_INFINITY, mark);
    expect(heads.toRead('engine', ALL, 1_000)).toEqual([1, 2, 3]);
  });

  it(`reads a partition again once its reading is ${MAX_AGE_MS} ms old in real time`, () => {
    vi.useFakeTimers({ toFake: ['performance'] });
    const heads = new DueHeads(4);
    heads.listening('engine', true);
    heads.saw('engine', 0, Number.POSITIVE_INFINITY, heads.mark('engine'));
    vi.advanceTimersByTime(MAX_AGE_MS - 1);
    expect(heads.toRead('engine', [0], 1_000)).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(heads.toRead('engine', [0], 1_000)).toEqual([0]);
  });

  it('forgets a stream when its last listener goes, and every reading on a reconnect', () => {
    const heads = new DueHeads(4);
    heads.listening('engine', true);
    heads.listening('work', true);
    for (const s of ['engine', 'work']) {
      for (const p of ALL) heads.saw(s, p, Number.POSITIVE_INFINITY, heads.mark(s));
    }
    heads.touchAll();
    expect(heads.toRead('engine', ALL, 1_000)).toEqual(ALL);
    expect(heads.toRead('work', ALL, 1_000)).toEqual(ALL);
    for (const p of ALL) heads.saw('work', p, Number.POSITIVE_INFINITY, heads.mark('work'));
    heads.listening('work', false);
    expect(heads.toRead('work', ALL, 1_000)).toEqual(ALL);
  });
});
