/** JSONata expressions: parsing once, evaluating over job data, and typed failures. */
import { describe, expect, it } from 'vitest';
import { ExpressionError } from '../../src/core/errors.js';
import { compileExpression, evaluateExpression } from '../../src/graph/index.js';

const data = {
  input: {
    amount: 42,
    items: [
      { sku: 'a', qty: 2 },
      { sku: 'b', qty: 1 },
    ],
  },
  charge: { output: { ok: true, id: 'ch_1' } },
  'ship-it': { output: { tracking: 'T1' } },
  refund: { error: { name: 'Declined', message: 'card declined' } },
};

describe('evaluateExpression', () => {
  it('reads the job input and activity outputs and errors', async () => {
    expect(
      await evaluateExpression("{ 'amount': input.amount, 'charge': charge.output.id }", data),
    ).toEqual({ amount: 42, charge: 'ch_1' });
    expect(await evaluateExpression('charge.output.ok', data)).toBe(true);
    expect(await evaluateExpression('refund.error.message', data)).toBe('card declined');
    expect(await evaluateExpression('`ship-it`.output.tracking', data)).toBe('T1');
  });

  it('returns plain arrays for sequences', async () => {
    const skus = await evaluateExpression('input.items.sku', data);
    expect(skus).toEqual(['a', 'b']);
    expect(JSON.stringify(skus)).toBe('["a","b"]');
    expect(await evaluateExpression('$sum(input.items.qty)', data)).toBe(3);
  });

  it('turns "nothing matched" into null', async () => {
    expect(await evaluateExpression('approve.output.by', data)).toBeNull();
    expect(await evaluateExpression("{ 'x': approve.output.by, 'y': 1 }", data)).toEqual({ y: 1 });
  });

  it('uses the injected time and random source when given', async () => {
    const now = Date.UTC(2024, 0, 2, 3, 4, 5);
    expect(await evaluateExpression('$millis()', {}, 'test', { now })).toBe(now);
    expect(await evaluateExpression('$now()', {}, 'test', { now })).toBe(
      '2024-01-02T03:04:05.000Z',
    );
    expect(await evaluateExpression("$now('[Y0001]-[M01]-[D01]')", {}, 'test', { now })).toBe(
      '2024-01-02',
    );
    expect(await evaluateExpression('$random()', {}, 'test', { random: () => 0.25 })).toBe(0.25);
  });

  it('fails with a typed error naming the expression and where', async () => {
    const failure = evaluateExpression(
      '$number(input.word)',
      { input: { word: 'seven' } },
      'transition a -> b (when)',
    );
    await expect(failure).rejects.toBeInstanceOf(ExpressionError);
    await expect(failure).rejects.toMatchObject({
      code: 'EXPRESSION',
      expression: '$number(input.word)',
      where: 'transition a -> b (when)',
      jsonataCode: 'D3030',
    });
    await expect(failure).rejects.toThrow(
      /transition a -> b \(when\): expression "\$number\(input.word\)" failed/,
    );
  });

  it('refuses a result that is not JSON', async () => {
    await expect(evaluateExpression('function($x) { $x }', {}, 'output')).rejects.toThrow(
      /result is not JSON: a function/,
    );
  });

  it('stops endless tail recursion with an error, not a hang', async () => {
    const expression = '($f := function($n) { $f($n + 1) }; $f(0))';
    await expect(evaluateExpression(expression, {}, 'output')).rejects.toMatchObject({
      jsonataCode: 'D1012',
    });
  });

  it('stops runaway recursion with an error, not a crash', async () => {
    const expression = '($f := function($n) { $n + $f($n + 1) }; $f(0))';
    await expect(evaluateExpression(expression, {}, 'output')).rejects.toBeInstanceOf(
      ExpressionError,
    );
  });
});

describe('compileExpression', () => {
  it('parses once per source text', () => {
    expect(compileExpression('input.a + 1')).toBe(compileExpression('input.a + 1'));
  });

  it('throws a typed error with the JSONata position on a syntax error', () => {
    try {
      compileExpression("{ 'a': ", 'activity x input');
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ExpressionError);
      expect(error).toMatchObject({ where: 'activity x input', jsonataCode: 'S0203', position: 7 });
    }
  });
});
