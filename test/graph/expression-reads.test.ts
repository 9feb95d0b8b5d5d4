/**
 * What an expression reads from the top of its data: the engine looks up only those
 * names (a step in one of a spread's threads must not read every thread's records), so
 * the answer must never leave out a name the expression can read.
 */
import { describe, expect, it } from 'vitest';
import { expressionReads, readPart } from '../../src/graph/expression-reads.js';
import { evaluateExpression, type Json } from '../../src/graph/expressions.js';

const data: Record<string, Json> = {
  input: { items: [1, 2, 3], name: 'n' },
  fan: { item: 7, index: 0, output: { item: 7, index: 0 }, error: null, status: 'SUCCESS' },
  charge: { output: { id: 'ch_1', amount: 5 }, error: null, status: 'SUCCESS' },
  gather: { output: [1, 2], error: null, status: 'SUCCESS' },
  'ship-it': { output: 'T1', error: null, status: 'SUCCESS' },
};

/** The data cut down to what `expressionReads` says the expression reads (or all of it). */
function cut(source: string): Record<string, Json> {
  return readPart(data, expressionReads(source)) as Record<string, Json>;
}

/** The names an expression reads, sorted, or `all`. */
function names(source: string): string[] | 'all' {
  const reads = expressionReads(source);
  return reads === 'all' ? 'all' : [...reads].sort();
}

describe('expressionReads', () => {
  it('names the activities and input a path starts from', () => {
    expect(names("{ 'x': fan.item, 'y': input.name }")).toEqual(['fan', 'input']);
    expect(names('`ship-it`.output')).toEqual(['ship-it']);
    expect(names('$count(gather.output[$ > 1])')).toEqual(['gather']);
    expect(names('fan.item')).toEqual(['fan']);
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
      'fan.$eval("$$.charge")',
      '($f := $eval; $f("charge"))',
      '($d := $; $d.charge)',
      '$lookup($$, "charge")',
      '$$[0]',
    ]) {
      expect(names(source), source).toBe('all');
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
