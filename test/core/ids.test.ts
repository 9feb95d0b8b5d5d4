import { describe, expect, it } from 'vitest';
import { SimulatedClock } from '../../src/core/clock.js';
import { createIdGenerator, idTime } from '../../src/core/ids.js';

/** Deterministic "random" bytes: a counter, so tests are repeatable. */
function counterBytes(): (size: number) => Uint8Array {
  let n = 0;
  return (size) => Uint8Array.from({ length: size }, () => (n = (n * 31 + 7) % 251));
}

const FORMAT = /^[0-9A-HJKMNP-TV-Z]{26}$/;

describe('ids', () => {
  it('are 26 Crockford base-32 characters that sort by creation time', async () => {
    const clock = new SimulatedClock(Date.UTC(2026, 0, 1));
    const next = createIdGenerator(clock, counterBytes());
    const ids: string[] = [];
    for (let i = 0; i < 50; i++) {
      ids.push(next());
      await clock.advance(1 + (i % 7) * 1_000);
    }
    for (const id of ids) expect(id).toMatch(FORMAT);
    expect([...ids].sort()).toEqual(ids);
  });

  it('are strictly increasing within one millisecond and when the clock steps back', async () => {
    const clock = new SimulatedClock(Date.UTC(2026, 0, 1));
    const next = createIdGenerator(clock, counterBytes());
    const ids = Array.from({ length: 1_000 }, () => next());
    for (let i = 1; i < ids.length; i++) expect(ids[i]! > ids[i - 1]!).toBe(true);
    expect(new Set(ids.map(idTime))).toEqual(new Set([clock.now()]));
    // A clock that goes backwards (a simulated clock cannot, so use a hand-made one).
    let now = 5_000;
    const back = createIdGenerator({ now: () => now, sleep: async () => {} }, counterBytes());
    const a = back();
    now = 4_000;
    const b = back();
    expect(b > a).toBe(true);
  });

  it('carry their creation time, which idTime reads back', () => {
    for (const at of [0, 1, Date.UTC(2026, 0, 1, 12, 30, 15, 123), 2 ** 48 - 1]) {
      const next = createIdGenerator(new SimulatedClock(at), counterBytes());
      expect(idTime(next())).toBe(at);
    }
  });
});

describe('id overflow within one millisecond', () => {
  it('keeps increasing when the random part wraps', () => {
    const next = createIdGenerator(new SimulatedClock(1_000), (n) => new Uint8Array(n).fill(31));
    const first = next();
    const second = next();
    expect(second > first).toBe(true);
  });
});
