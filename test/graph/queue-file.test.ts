/**
 * A workflow file's `queue:`: a name alone refers to a queue declared elsewhere; with
 * limits it is also the queue's declaration, which a deploy stores and which is not part
 * of the definition's content; its key is JSONata over the input and may read nothing
 * else; each wrong field is reported at its line.
 */
import { describe, expect, it } from 'vitest';
import { compileWorkflow } from '../../src/engine/compiler.js';
import { lines, problemsOf } from './helpers.js';

const head = [
  'workflow: charge',
  'activities:',
  '  start: { kind: trigger }',
  '  pay: { kind: task }',
  'transitions:',
  '  start: [pay]',
];

describe('a queue in a workflow file', () => {
  it('names a queue: its jobs wait in it, with no declaration', () => {
    const compiled = compileWorkflow(lines(...head, 'queue: payments'));
    expect(compiled.queue).toEqual({ name: 'payments' });
    expect(compiled.queueDeclaration).toBeUndefined();
  });

  it('declares the queue when it gives limits; the key and priority go with the jobs', () => {
    const compiled = compileWorkflow(
      lines(
        ...head,
        'queue:',
        '  name: payments',
        '  key: input.customer',
        '  priority: 2',
        '  concurrency: 10',
        '  key_concurrency: 1',
        '  rate: 50/30s',
        '  key_rate: 5/1m',
        '  throttle: drop',
        '  aging: 2m',
      ),
    );
    expect(compiled.queue).toEqual({ name: 'payments', key: 'input.customer', priority: 2 });
    expect(compiled.queueDeclaration).toEqual({
      name: 'payments',
      concurrency: 10,
      keyConcurrency: 1,
      rateLimit: 50,
      ratePeriodMs: 30_000,
      keyRateLimit: 5,
      keyRatePeriodMs: 60_000,
      throttle: 'drop',
      agingMs: 120_000,
    });
  });

  it('reports each wrong field at its line', () => {
    const bad = (...queue: string[]) =>
      problemsOf(lines(...head, 'queue:', ...queue)).map((p) => [p.line, p.path, p.message]);
    expect(bad('  name: payments', '  key: pay.output.customer')).toEqual([
      [9, 'queue.key', 'key at position 0 reads "pay"; it can read only `input`'],
    ]);
    expect(bad('  name: payments', '  rate: 0/1s')).toEqual([
      [9, 'queue.rate', 'rate "0/1s" is not at least 1 start per period'],
    ]);
    expect(bad('  name: "pay ments"', '  concurrency: 2')).toEqual([
      [
        8,
        'queue.name',
        'name "pay ments" is not a queue name: letters, digits and . _ : - (not first), up to 128',
      ],
    ]);
    expect(bad('  name: payments', '  rate: fast')).toEqual([
      [9, 'queue.rate', expect.stringMatching(/a rate is a number of starts per duration/)],
    ]);
    expect(bad('  name: payments', '  key: "input.("')).toEqual([
      [9, 'queue.key', expect.stringMatching(/^bad JSONata in key/)],
    ]);
  });
});
