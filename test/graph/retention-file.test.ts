/**
 * A workflow file's `retention:`: one duration or `forever` for every end state, or one
 * per end state; it is not part of the definition's content; a wrong value is reported at
 * its line.
 */
import { describe, expect, it } from 'vitest';
import { describeRetention } from '../../src/core/retention.js';
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

describe('retention in a workflow file', () => {
  it('gives every end state one duration, or forever', () => {
    const compiled = compileWorkflow(lines(...head, 'retention: 30d'));
    const month = 30 * 86_400_000;
    expect(compiled.retention).toEqual({ SUCCESS: month, FAILURE: month, REVERTED: month });
    expect(describeRetention(compiled.retention ?? {})).toBe('30d');
    expect(compileWorkflow(lines(...head, 'retention: forever')).retention).toEqual({
      SUCCESS: null,
      FAILURE: null,
      REVERTED: null,
    });
    expect(compileWorkflow(lines(...head)).retention).toBeUndefined();
  });

  it('gives end states their own; one left out is the worker default', () => {
    const compiled = compileWorkflow(
      lines(...head, 'retention:', '  succeeded: 7d', '  failed: forever'),
    );
    expect(compiled.retention).toEqual({ SUCCESS: 7 * 86_400_000, FAILURE: null });
    expect(describeRetention(compiled.retention ?? {})).toBe('succeeded: 7d, failed: forever');
  });

  it('reports a wrong value at its line', () => {
    const bad = (...retention: string[]) =>
      problemsOf(lines(...head, ...retention)).map((p) => [p.line, p.path]);
    expect(bad('retention: 0')).toEqual([[7, 'retention']]);
    expect(bad('retention: soon')).toEqual([[7, 'retention']]);
    expect(bad('retention:', '  succeeded: 7d', '  failed: 0ms')).toEqual([
      [9, 'retention.failed'],
    ]);
    expect(bad('retention:', '  done: 7d').map(([, path]) => path)).toEqual(['retention.done']);
  });
});
