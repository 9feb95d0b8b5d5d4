/**
 * Where a decision takes the values it records the first time a workflow asks for them
 * (`date()`, `random()`, `uuid()`). Injected: tests pass a seeded source; the runtime
 * passes {@link systemValueSource}. Replay never calls it for a value already recorded.
 */
import { randomUUID } from 'node:crypto';
import type { Clock } from '../core/clock.js';

/** A source of fresh values for a decision. */
export interface ValueSource {
  /** Epoch milliseconds. */
  now(): number;
  /** A number in [0, 1). */
  random(): number;
  /** A unique id. */
  uuid(): string;
}

/** The runtime's source: the given clock, `Math.random` and `crypto.randomUUID`. */
export function systemValueSource(clock: Clock): ValueSource {
  return { now: () => clock.now(), random: () => Math.random(), uuid: () => randomUUID() };
}

/** A deterministic source for tests: a fixed start time and a seeded generator. */
export function seededValueSource(seed: number, start = Date.UTC(2026, 0, 1)): ValueSource {
  let state = seed >>> 0 || 1;
  let time = start;
  let count = 0;
  const next = () => {
    // xorshift32
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state / 0x100000000;
  };
  return {
    now: () => {
      time += 1000;
      return time;
    },
    random: next,
    uuid: () => {
      count += 1;
      const hex = Math.floor(next() * 0xffffffff)
        .toString(16)
        .padStart(8, '0');
      return `${hex}-0000-4000-8000-${count.toString(16).padStart(12, '0')}`;
    },
  };
}
