import { describe, expect, it } from 'vitest';
import { SimulatedClock, SystemClock } from '../../src/core/clock.js';

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('SimulatedClock', () => {
  it('starts where told and moves only when advanced, never backwards', async () => {
    const clock = new SimulatedClock(1_000);
    expect(clock.now()).toBe(1_000);
    await clock.advance(500);
    expect(clock.now()).toBe(1_500);
    await clock.set(1_200);
    expect(clock.now()).toBe(1_500);
  });

  it('wakes sleepers in time order, ties in the order they slept, each at its own time', async () => {
    const clock = new SimulatedClock(0);
    const woke: string[] = [];
    const sleep = (ms: number, name: string) =>
      clock.sleep(ms).then(() => woke.push(`${name}@${clock.now()}`));
    const all = [
      sleep(30, 'c'),
      sleep(10, 'a1'),
      sleep(20, 'b'),
      sleep(10, 'a2'),
      sleep(99, 'late'),
    ];
    expect(clock.pending).toBe(5);
    await clock.advance(30);
    expect(woke).toEqual(['a1@10', 'a2@10', 'b@20', 'c@30']);
    expect(clock.pending).toBe(1);
    await clock.advance(100);
    await Promise.all(all);
    expect(woke.at(-1)).toBe('late@99');
    expect(clock.now()).toBe(130);
  });

  it('wakes sleepers queued by a sleeper it just woke, within the same advance', async () => {
    const clock = new SimulatedClock(0);
    const times: number[] = [];
    const loop = (async () => {
      for (let i = 0; i < 3; i++) {
        await clock.sleep(10);
        times.push(clock.now());
      }
    })();
    await clock.advance(25);
    expect(times).toEqual([10, 20]);
    await clock.advance(5);
    await loop;
    expect(times).toEqual([10, 20, 30]);
  });

  it('an aborted sleep rejects with the reason and never wakes', async () => {
    const clock = new SimulatedClock(0);
    const controller = new AbortController();
    const sleeping = clock.sleep(50, controller.signal);
    expect(clock.pending).toBe(1);
    controller.abort(new Error('stop'));
    expect(await rejection(sleeping)).toMatchObject({ message: 'stop' });
    expect(clock.pending).toBe(0);
    await clock.advance(100);
    const early = new AbortController();
    early.abort('already');
    expect(await rejection(clock.sleep(1, early.signal))).toBe('already');
    expect(clock.pending).toBe(0);
  });
});

describe('SystemClock', () => {
  it('reads epoch milliseconds and rejects aborted sleeps', async () => {
    const clock = new SystemClock();
    expect(Number.isInteger(clock.now())).toBe(true);
    const early = new AbortController();
    early.abort('early');
    expect(await rejection(clock.sleep(10, early.signal))).toBe('early');
    const controller = new AbortController();
    const sleeping = clock.sleep(3_600_000, controller.signal);
    controller.abort('late');
    expect(await rejection(sleeping)).toBe('late');
  });
});
