/**
 * The cluster slot of a key (src/store/redis/replication.ts `keySlot`, the
 * `cluster-key-slot` package ioredis routes by), which `?wait=N` uses to find the master
 * that ran a commit: Redis Cluster's CRC16 of the key, or of its hash tag — checked
 * against the values Redis's own documentation gives for `CLUSTER KEYSLOT` (the failover
 * test checks it against a live cluster too).
 */
import { describe, expect, it } from 'vitest';
import { keySlot } from '../../src/store/redis/replication.js';

describe('keySlot', () => {
  it('agrees with CLUSTER KEYSLOT', () => {
    expect(keySlot('somekey')).toBe(11058);
    expect(keySlot('foo{hash_tag}')).toBe(2515);
    // CRC16/XMODEM's check value 0x31C3.
    expect(keySlot('123456789')).toBe(0x31c3);
  });

  it('hashes only a non-empty hash tag: the first {…} with something in it', () => {
    // Values read from redis-server 7.0's CLUSTER KEYSLOT.
    expect(keySlot('p3')).toBe(3689);
    expect(keySlot('weft:{p3}:job:a')).toBe(3689);
    expect(keySlot('weft:{p3}:rev')).toBe(3689);
    // (`{}{p3}`, an empty first tag, is 348 on Redis — the whole key — and 9872 in
    // cluster-key-slot; weft's keys always carry a non-empty tag, `{g}` or `{p<N>}`.)
    expect(keySlot('a{b')).toBe(13340);
    expect(keySlot('a{b}c{d}')).toBe(3300);
  });
});
