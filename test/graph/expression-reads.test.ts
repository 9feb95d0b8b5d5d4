/**
 * What an expression reads from the top of its data: the engine looks up only those
 * names (a step in one of a spread's threads must not read every thread's records), so
 * the answer must never leave out a name the expression can read.
 */
import { describe, expect, it } from 'vitest';
import { evaluateExpression, type Json, readsOf } from '../../src/graph/expressions.js';

const data: Record<string, Json> = {
  input: { items: [1, 2, 3], name: 'n' },
  fan: { item: 7, index: 0, output: { item: 7, index: 0 }, error: null, status: 'SUCCESS' },
  charge: { output: { id: 'ch_1', amount: 5 }, error: null, status: 'SUCCESS' },
  gather: { output: [1, 2], error: null, status: 'SUCCESS' },
  'ship-it': { output: 'T1', error: null, status: 'SUCCESS' },
};

/** The data cut down to what `readsOf` says the expression reads (or all of it). */
function cut(source: string): Record<string, Json> {
  const reads = readsOf(source);
  if (reads.whole) return data;
  return Object.fromEntries(Object.entries(data).filter(([name]) => reads.names.has(name)));
}

describe('readsOf', () => {
  it('names the activities and input a path starts from', () => {
    expect([...readsOf("{ 'x': fan.item, 'y': input.name }").names].sort()).toEqual([
      'fan',
      'input',
    ]);
    expect([...readsOf('`ship-it`.output').names]).toEqual(['ship-it']);
    expect([...readsOf('$count(gather.output[$ > 1])').names]).toEqual(['gather']);
    expect(readsOf('fan.item').whole).toBe(false);
  });

  it('reads everything when the expression can name anything', () => {
    for (const source of [
      '$',
      '$$',
      '$keys($)',
      '$$.*',
      '*.output',
      '**.id',
      '$eval("charge.output")',
      '($d := $; $d.charge)',
      '$lookup($$, "charge")',
      '$$[0]',
    ]) {
      expect(readsOf(source).whole, source).toBe(true);
    }
  });

  it('gives the same result over only the names it reads as over all the data', async () => {
    const sources = [
      'fan.item * 2',
      "{ 'x': fan.item, 'n': input.name }",
      '$.charge.output.id',
      '$$.charge.output.amount + fan.index',
      '$count(gather.output)',
      'input.items[$ > 1]',
      'input.items.($ + fan.item)',
      '$map(input.items, function($v) { $v + $$.fan.item })',
      "charge.status = 'SUCCESS' ? charge.output.amount : 0",
      '`ship-it`.output',
      '$keys($)',
      '*.status',
      '$string($$)',
      'missing.output',
      '($x := charge.output; $x.amount)',
    ];
    for (const source of sources) {
      expect(await evaluateExpression(source, cut(source)), source).toEqual(
        await evaluateExpression(source, data),
      );
    }
  });
});
