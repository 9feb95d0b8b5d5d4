/**
 * The Redis store's partitions and the commit plan's split by slot (docs/store-redis.md,
 * sections 2 and 6), without a server: a message id names its partition and ids still grow
 * in append order; one partition changes nothing; a commit plan splits into one plan per
 * hash tag, each with its own keys, and a notice rides with its channel's slot.
 */
import { describe, expect, it } from 'vitest';
import { CommitPlan, hashTag } from '../../src/store/redis/commit-script.js';
import { Partitions } from '../../src/store/redis/partitions.js';

describe('Redis partitions', () => {
  it('gives each message id its partition, ids growing in append order', () => {
    const partitions = new Partitions(16);
    const ids = [1, 2, 3].flatMap((seq) => [5, 0, 15].map((p) => partitions.messageId(seq, p)));
    expect(ids.map((id) => partitions.ofMessage(id))).toEqual([5, 0, 15, 5, 0, 15, 5, 0, 15]);
    const bySeq = ids.map(Number);
    expect(bySeq.slice(0, 3).every((id) => id < (bySeq[3] as number))).toBe(true);
  });

  it('changes nothing with one partition: ids are the sequence, every job in partition 0', () => {
    const one = new Partitions(1);
    expect(one.messageId(42, 0)).toBe('42');
    expect(one.ofMessage('42')).toBe(0);
    expect(one.hashed('any-job')).toBe(0);
    expect(one.all()).toEqual([0]);
  });

  it('hashes a child named after its parent (`<parent>.…`) to its parent’s partition', () => {
    const partitions = new Partitions(16);
    for (const parent of ['order-1', '01M8D74K5VND8C02FEY129NP2K', 'chaos-000096']) {
      for (const child of [`${parent}.a`, `${parent}.0.0.1`, `${parent}.child.b`]) {
        expect(partitions.hashed(child)).toBe(partitions.hashed(parent));
      }
    }
  });

  it('hashes a job id to the same partition every time, spread over all of them', () => {
    const partitions = new Partitions(8);
    const seen = new Set<number>();
    for (let i = 0; i < 200; i++) {
      const p = partitions.hashed(`job-${i}`);
      expect(partitions.hashed(`job-${i}`)).toBe(p);
      seen.add(p);
    }
    expect([...seen].sort()).toEqual(partitions.all());
  });
});

describe('CommitPlan.bySlot', () => {
  it('reads a hash tag as Redis Cluster does', () => {
    expect(hashTag('weft:{p3}:job:x')).toBe('p3');
    expect(hashTag('weft:{g}:meta')).toBe('g');
    expect(hashTag('no-tag')).toBe('no-tag');
    expect(hashTag('empty:{}:tag')).toBe('empty:{}:tag');
  });

  it('splits a commit into one plan per slot, each numbering its own keys', () => {
    const plan = new CommitPlan();
    plan.checkRevision('weft:{p1}:rev', 'j', '3');
    plan.hset('weft:{p1}:job:j', [['state', '"RUNNING"']]);
    plan.hset('weft:{g}:qitems', [['j', '{}']]);
    plan.zadd('weft:{p2}:due:s', 5, '00000000000000000018');
    plan.publishSharded('weft:{p2}:n:stream:s');
    const parts = plan.bySlot();
    expect([...parts.keys()]).toEqual(['p1', 'g', 'p2']);
    expect(parts.get('p1')?.checks).toBe(true);
    expect(parts.get('g')?.checks).toBe(false);
    expect(parts.get('p1')?.encode()).toEqual({
      keys: ['weft:{p1}:rev', 'weft:{p1}:job:j'],
      args: ['rev', '1', 'j', '3', '|', 'hset', '2', '1', 'state', '"RUNNING"'],
    });
    expect(parts.get('p2')?.encode()).toEqual({
      keys: ['weft:{p2}:due:s', 'weft:{p2}:n:stream:s'],
      args: ['|', 'zadd', '1', '5', '00000000000000000018', 'spub', '2'],
    });
    // A split commit's part other than its primary: first its checks and its fence…
    expect(parts.get('p1')?.prepare('weft:{p1}:fence', 't').encode()).toEqual({
      keys: ['weft:{p1}:fence', 'weft:{p1}:rev'],
      args: ['fence', '1', 't', 'rev', '2', 'j', '3', '|', 'fset', '1', 't'],
    });
    // …then, once the primary part committed, its writes while its fence is there, and
    // the fence taken away.
    expect(parts.get('p1')?.held('weft:{p1}:fence', 't').encode()).toEqual({
      keys: ['weft:{p1}:fence', 'weft:{p1}:job:j'],
      args: ['held', '1', 't', '|', 'hset', '2', '1', 'state', '"RUNNING"', 'fdel', '1', 't'],
    });
    // The primary part: its checks, no other fence on its slot, not given up; its writes
    // and the record of the rest.
    expect(
      parts
        .get('p1')
        ?.primary('weft:{p1}:fence', 'weft:{p1}:split:abort:t', 'weft:{p1}:split', 't', '[]')
        .encode(),
    ).toEqual({
      keys: [
        'weft:{p1}:fence',
        'weft:{p1}:rev',
        'weft:{p1}:job:j',
        'weft:{p1}:split:abort:t',
        'weft:{p1}:split',
      ],
      args: [
        ...['fence', '1', 't', 'rev', '2', 'j', '3', 'nokey', '4', '|'],
        ...['hset', '3', '1', 'state', '"RUNNING"', 'hset', '5', '1', 't', '[]'],
      ],
    });
  });
});
