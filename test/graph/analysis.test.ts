/**
 * Graph analysis for the engine: neighbours by outcome, reachability, cycle bodies, and
 * the join and skip rules — seed 000's quick-brown-fox keys verbatim, diamonds under
 * join all and join any, and skips around cycles.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { workflow } from '../../src/engine/builder.js';
import { compileWorkflow } from '../../src/engine/compiler.js';
import {
  cycleBody,
  cycleExits,
  digitsOf,
  joinStatus,
  predecessors,
  reachableFrom,
  skipClosure,
  successors,
  upstreamOf,
} from '../../src/graph/index.js';

const order = compileWorkflow(
  readFileSync(new URL('../../examples/order.yaml', import.meta.url), 'utf8'),
);

/** `quick => brown => fox => (jumped|(slept => ate))`, seed 000. */
const fox = workflow('fox')
  .trigger('quick')
  .task('brown')
  .task('fox')
  .task('jumped')
  .task('slept')
  .task('ate')
  .transition('quick', 'brown')
  .transition('brown', 'fox')
  .transition('fox', 'jumped', { when: 'fox.output.jump' })
  .transition('fox', 'slept', { when: '$not(fox.output.jump)' })
  .transition('slept', 'ate')
  .compile();

/** Renders digits back to a key in collation order, padded to 15. */
function keyOf(digits: Record<string, number>): string {
  return fox.order
    .map((id) => String(digits[id]))
    .join('')
    .padEnd(15, '0');
}

/** Applies skips to digits. */
function skip(digits: Record<string, number>, ids: string[]): Record<string, number> {
  return { ...digits, ...Object.fromEntries(ids.map((id) => [id, 3])) };
}

describe('neighbours and reachability', () => {
  it('gives successors and predecessors, by outcome when asked', () => {
    expect(successors(order, 'charge')).toEqual(['approve', 'nap', 'refund']);
    expect(successors(order, 'charge', 'error')).toEqual(['refund']);
    expect(successors(order, 'approve', 'timeout')).toEqual(['refund']);
    expect(predecessors(order, 'refund')).toEqual(['charge', 'approve']);
    expect(predecessors(order, 'refund', 'success')).toEqual([]);
    expect(predecessors(order, 'start')).toEqual([]);
  });

  it('finds what is reachable from and upstream of an activity', () => {
    expect([...reachableFrom(order, 'approve')].sort()).toEqual([
      'approve',
      'child',
      'refund',
      'ship',
    ]);
    expect([...reachableFrom(order, ['nap', 'ship'])].sort()).toEqual([
      'again',
      'child',
      'nap',
      'ship',
    ]);
    expect([...upstreamOf(order, 'ship')].sort()).toEqual(['approve', 'charge', 'start']);
    expect(upstreamOf(order, 'start').size).toBe(0);
  });

  it("gives a cycle's body (ancestor to cycle, both included) and its exits", () => {
    expect(cycleBody(order, 'again')).toEqual(['again', 'charge', 'nap']);
    expect(cycleExits(order, 'again')).toEqual(['approve', 'refund']);
    expect(cycleBody(order, 'charge')).toEqual([]);
  });
});

describe('seed 000: quick => brown => fox => (jumped|(slept => ate))', () => {
  it('reads the seed keys as digits by activity', () => {
    expect(digitsOf(fox, '999969000000000')).toEqual({
      ate: 9,
      brown: 9,
      fox: 9,
      jumped: 9,
      quick: 6,
      slept: 9,
    });
    expect(digitsOf(fox, 968969000000000n)).toEqual({
      ate: 9,
      brown: 6,
      fox: 8,
      jumped: 9,
      quick: 6,
      slept: 9,
    });
  });

  it('Example 2: fox does not take slept, so slept and ate are skipped (366863000000000)', () => {
    // fox completed and took jumped (now started); its transition to slept was not taken.
    const before = digitsOf(fox, '966869000000000');
    const skipped = skipClosure(fox, 'slept', { digits: before });
    expect(skipped).toEqual(['ate', 'slept']);
    expect(keyOf(skip(before, skipped))).toBe('366863000000000');
  });

  it('Example 4: fox does not take jumped; only jumped is skipped (then 566366000000000)', () => {
    const before = digitsOf(fox, '966968000000000'); // fox done, slept started
    expect(skipClosure(fox, 'jumped', { digits: before })).toEqual(['jumped']);
  });

  it('never skips what already started, the trigger, or an entered activity', () => {
    const digits = digitsOf(fox, '966869000000000');
    expect(skipClosure(fox, 'jumped', { digits })).toEqual([]);
    expect(skipClosure(fox, 'quick', { digits })).toEqual([]);
    expect(skipClosure(fox, 'slept', { digits, entered: new Set(['slept']) })).toEqual([]);
  });
});

describe('a diamond a => (b | c) => d', () => {
  const diamond = (join: 'all' | 'any') =>
    workflow('diamond')
      .trigger('a')
      .task('b')
      .task('c')
      .task('d', { join })
      .transition('a', 'b', { when: 'input.b' })
      .transition('a', 'c', { when: 'input.c' })
      .transition('b', 'd')
      .transition('c', 'd')
      .compile();

  describe('join: all', () => {
    const wf = diamond('all');

    it('skips the untaken branch and keeps the target waiting for the other', () => {
      const digits = { a: 6, b: 8, c: 9, d: 9 };
      expect(skipClosure(wf, 'c', { digits })).toEqual(['c']);
      expect(joinStatus(wf, 'd', { digits: { ...digits, c: 3 } })).toBe('wait');
    });

    it('runs the target with the inputs that fired once the other branch completes', () => {
      expect(
        joinStatus(wf, 'd', { digits: { a: 6, b: 6, c: 3, d: 9 }, entered: new Set(['d']) }),
      ).toBe('run');
    });

    it('waits for every branch that may still fire', () => {
      expect(
        joinStatus(wf, 'd', { digits: { a: 6, b: 6, c: 8, d: 9 }, entered: new Set(['d']) }),
      ).toBe('wait');
    });

    it('skips the target when all its incoming are skipped or not taken', () => {
      expect(skipClosure(wf, 'd', { digits: { a: 6, b: 6, c: 3, d: 9 } })).toEqual(['d']);
      expect(skipClosure(wf, ['b', 'c'], { digits: { a: 6, b: 9, c: 9, d: 9 } })).toEqual([
        'b',
        'c',
        'd',
      ]);
    });
  });

  describe('join: any', () => {
    const wf = diamond('any');

    it('runs at the first incoming that fires, whatever the other does', () => {
      expect(
        joinStatus(wf, 'd', { digits: { a: 6, b: 6, c: 8, d: 9 }, entered: new Set(['d']) }),
      ).toBe('run');
    });

    it('keeps waiting while one branch is skipped and the other may still fire', () => {
      expect(skipClosure(wf, 'c', { digits: { a: 6, b: 8, c: 9, d: 9 } })).toEqual(['c']);
      expect(joinStatus(wf, 'd', { digits: { a: 6, b: 8, c: 3, d: 9 } })).toBe('wait');
    });

    it('is skipped when nothing fired and nothing can', () => {
      expect(joinStatus(wf, 'd', { digits: { a: 6, b: 7, c: 3, d: 9 } })).toBe('skip');
    });

    it('reports started once it is past pending', () => {
      expect(joinStatus(wf, 'd', { digits: new Map([['d', 8]]) })).toBe('started');
    });
  });
});

describe('skips around a cycle', () => {
  // start => charge => check => (done | again → charge | other)
  const wf = workflow('loop')
    .trigger('start')
    .task('charge')
    .task('check')
    .task('done')
    .task('other')
    .cycle('again', { ancestor: 'charge', max: 3 })
    .transition('start', 'charge')
    .transition('charge', 'check')
    .transition('check', 'done', { when: 'check.output.ok' })
    .transition('check', 'again', { when: '$not(check.output.ok)' })
    .transition('check', 'other', { when: 'check.output.other' })
    .compile();

  it('has the body the engine resets', () => {
    expect(cycleBody(wf, 'again')).toEqual(['again', 'charge', 'check']);
    expect(cycleExits(wf, 'again')).toEqual(['done', 'other']);
  });

  it('does not skip an exit while the cycle will loop again', () => {
    const digits = { start: 6, charge: 6, check: 6, again: 9, done: 9, other: 9 };
    expect(skipClosure(wf, ['done', 'other'], { digits, entered: new Set(['again']) })).toEqual([]);
    expect(joinStatus(wf, 'done', { digits, entered: new Set(['again']) })).toBe('wait');
  });

  it('skips the cycle when the last iteration does not take it, then the exits nothing took', () => {
    const digits = { start: 6, charge: 6, check: 6, again: 9, done: 9, other: 9 };
    const skipped = skipClosure(wf, ['done', 'again'], { digits, entered: new Set(['other']) });
    expect(skipped).toEqual(['again', 'done']);
  });

  it('keeps an exit that a later iteration took', () => {
    const digits = { start: 6, charge: 6, check: 6, again: 9, done: 9, other: 9 };
    expect(skipClosure(wf, ['again', 'other'], { digits, entered: new Set(['done']) })).toEqual([
      'again',
      'other',
    ]);
  });

  it('skips the untaken exits once the cycle errors at its max', () => {
    const digits = { start: 6, charge: 6, check: 6, again: 7, done: 9, other: 9 };
    expect(skipClosure(wf, cycleExits(wf, 'again'), { digits })).toEqual(['done', 'other']);
  });
});
