/**
 * The graph's one analysis, the one the compiler and the engine use: neighbours,
 * reachability, the order tables list activities in, what a cycle re-entry resets, and
 * the join rule under join all and join any.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { workflow } from '../../src/engine/builder.js';
import { compileWorkflow } from '../../src/engine/compiler.js';
import {
  graphIndex,
  graphOrder,
  joinDecision,
  reachable,
  reachableFrom,
  reentered,
} from '../../src/graph/index.js';

const order = compileWorkflow(
  readFileSync(new URL('../../examples/order.yaml', import.meta.url), 'utf8'),
);

describe('neighbours, reachability and order', () => {
  it('indexes transitions by source and by target, in file order', () => {
    const { outgoing, incoming } = graphIndex(order);
    expect(outgoing.get('charge')?.map((t) => `${t.to}:${t.on}`)).toEqual([
      'approve:success',
      'nap:success',
      'refund:error',
    ]);
    expect(incoming.get('refund')?.map((t) => `${t.from}:${t.on}`)).toEqual([
      'charge:error',
      'approve:timeout',
    ]);
    expect(incoming.get('start')).toEqual([]);
    expect(graphIndex(order)).toBe(graphIndex(order));
  });

  it('finds what is reachable, breadth first', () => {
    expect([...reachableFrom(order, 'approve')]).toEqual(['approve', 'ship', 'refund', 'child']);
    expect([...reachableFrom(order, ['nap', 'ship'])].sort()).toEqual([
      'again',
      'child',
      'nap',
      'ship',
    ]);
    const next = new Map([
      ['a', ['b', 'c']],
      ['b', ['d']],
      ['c', ['d', 'a']],
    ]);
    expect([...reachable('a', (id) => next.get(id) ?? [])]).toEqual(['a', 'b', 'c', 'd']);
  });

  it('lists activities breadth first from the trigger', () => {
    expect(graphOrder(order)).toEqual([
      'start',
      'charge',
      'approve',
      'nap',
      'refund',
      'ship',
      'again',
      'child',
    ]);
  });
});

describe('what a cycle re-entry resets', () => {
  it('is everything downstream of the ancestor: body, exits and what follows them', () => {
    // charge => (approve => ship => child | nap => again → charge | refund)
    expect(reentered(order, 'again')).toEqual([
      'again',
      'approve',
      'charge',
      'child',
      'nap',
      'refund',
      'ship',
    ]);
    expect(reentered(order, 'charge')).toEqual([]);
  });

  it('leaves what is upstream of the ancestor, and side branches before it', () => {
    const wf = workflow('loop')
      .trigger('start')
      .task('prepare')
      .task('audit')
      .task('work')
      .task('done')
      .cycle('again', { ancestor: 'work', max: 3 })
      .transition('start', 'prepare')
      .transition('start', 'audit')
      .transition('prepare', 'work')
      .transition('work', 'again', { when: 'work.output < 2' })
      .transition('work', 'done', { when: 'work.output >= 2' })
      .compile();
    expect(reentered(wf, 'again')).toEqual(['again', 'done', 'work']);
  });
});

describe('the join rule', () => {
  const count = (incoming: number, settled: number, taken: number) => ({
    incoming,
    settled,
    taken,
  });

  it('join all waits for every incoming transition, then runs if one fired', () => {
    expect(joinDecision('all', count(2, 1, 1), true)).toBe('wait');
    expect(joinDecision('all', count(2, 2, 1), false)).toBe('enter');
    expect(joinDecision('all', count(2, 2, 2), true)).toBe('enter');
    expect(joinDecision('all', count(1, 1, 1), true)).toBe('enter');
  });

  it('join any runs at the first that fires and ignores the later ones', () => {
    expect(joinDecision('any', count(2, 1, 1), true)).toBe('enter');
    expect(joinDecision('any', count(2, 2, 2), true)).toBe('wait');
    expect(joinDecision('any', count(2, 2, 1), false)).toBe('wait');
    expect(joinDecision('any', count(2, 1, 0), false)).toBe('wait');
  });

  it('skips a target none of whose incoming transitions fired, under either join', () => {
    expect(joinDecision('all', count(2, 2, 0), false)).toBe('skip');
    expect(joinDecision('any', count(2, 2, 0), false)).toBe('skip');
    expect(joinDecision('all', count(1, 1, 0), false)).toBe('skip');
  });
});
