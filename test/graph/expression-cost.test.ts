/**
 * Which expressions are provably cheap (evaluated inline, in the transaction) and what an
 * expression can read of its data (what the sandbox is sent and what its memo is keyed by).
 */
import { describe, expect, it } from 'vitest';
import { isCheapExpression } from '../../src/graph/expression-cost.js';
import { expressionReads, readPart } from '../../src/graph/expression-reads.js';
import { isCheapInputSchema } from '../../src/graph/job-input.js';

describe('isCheapExpression', () => {
  it.each([
    'input.items',
    "{ 'amount': input.amount, 'charge': charge.output.id }",
    'a.b[c > 1].d',
    'input.items[0]',
    '$',
    'a ? b : -c',
    'a ?: b',
    '"x" in input.tags',
    "input.first & ' ' & input.last",
    '[1, input.n, { "k": a }]',
    '(a; b)',
    '$count(gather.output) > 0 and $exists(x)',
    '$string(a.b)',
    '$now()',
    'input.items[]',
  ])('%s is cheap', (source) => {
    expect(isCheapExpression(source)).toBe(true);
  });

  it.each([
    '$contains(s, /^(a+)+$/)',
    '$pad("x", 100000000)',
    '$sort([1..10000000])',
    '[1..1000]',
    '$replace(s, "a", s)',
    '$distinct(input.items)',
    '$map(xs, function($v) { $v })',
    '$x := 1',
    '$$.a',
    'a[$$.b = 1]',
    'a{b: c}',
    'a^(b)',
    '**.a',
    '*.a',
    'a.%.b',
    'x ~> $string()',
    '| a | {"b": 1} |',
    '$join(input.items, input.sep)',
    'a#$i',
    'foo(',
  ])('%s is not', (source) => {
    expect(isCheapExpression(source)).toBe(false);
  });
});

describe('expressionReads', () => {
  const reads = (source: string) => {
    const r = expressionReads(source);
    return r === 'all' ? 'all' : [...r].sort();
  };

  it('names the top-level data a path, a call, a lambda at the top or a chain reads', () => {
    expect(reads('input.items')).toEqual(['input']);
    expect(reads('$reduce([fan.item], function($a, $b) { $a + $b }, 0)')).toEqual(['fan']);
    expect(reads("$join(['kept', $string(each.output)], '-')")).toEqual(['each']);
    expect(reads('$map(xs, function($v) { fan.item })')).toEqual(['fan', 'xs']);
    expect(reads('xs.(function($v) { fan })')).toEqual(['xs']);
    expect(reads('a[$.b = 1].c^(>d){e: f}')).toEqual(['a']);
    expect(reads('($x := a; $x.b)')).toEqual(['a']);
    expect(reads('x ~> $string()')).toEqual(['x']);
    expect(reads('$lookup(input, "x")')).toEqual(['input']);
    expect(reads('$now()')).toEqual([]);
  });

  it('is everything when the expression can reach the whole data', () => {
    for (const source of [
      '$$.a',
      '$.a',
      '$keys()',
      '$string()',
      '$lookup("fan")',
      '($x := $; $x.a)',
      'a.%.b',
      '**.x',
      '*',
      'function($v)<x-:s>{ $v }',
      'foo(',
    ]) {
      expect(reads(source), source).toBe('all');
    }
  });

  it('cuts the data down to what is read, keeping nulls and leaving out what is absent', () => {
    const data = { input: { n: 1 }, a: null, b: { output: 2 } };
    expect(readPart(data, new Set(['input', 'a', 'z']))).toEqual({ input: { n: 1 }, a: null });
    expect(readPart(data, 'all')).toBe(data);
  });
});

describe('isCheapInputSchema', () => {
  it('is true without patterns, formats, uniqueItems or references', () => {
    expect(
      isCheapInputSchema({
        type: 'object',
        required: ['n'],
        properties: { n: { type: 'number', minimum: 0 }, tags: { type: 'array' } },
        anyOf: [{ required: ['n'] }, { required: ['tags'] }],
      }),
    ).toBe(true);
  });

  it.each([
    { properties: { s: { type: 'string', pattern: '^(a+)+$' } } },
    { patternProperties: { '^x': {} } },
    { properties: { e: { type: 'string', format: 'email' } } },
    { type: 'array', uniqueItems: true },
    { definitions: { a: {} }, properties: { x: { $ref: '#/definitions/a' } } },
  ])('is false for %j', (schema) => {
    expect(isCheapInputSchema(schema)).toBe(false);
  });
});
