/** Compiling spread and collect: the thread region rules and CircularCollect. */
import { describe, expect, it } from 'vitest';
import { compileWorkflow } from '../../src/engine/compiler.js';
import { upstreamOf } from '../../src/graph/analysis.js';
import { lines, problemMatching } from './helpers.js';

/** Two collects in one loop: left holds what `a` sends, right what `b` sends. */
const TWO_COLLECTS = lines(
  'workflow: circular',
  'activities:',
  '  start: { kind: trigger }',
  '  a: { kind: task }',
  '  left: { kind: collect }',
  '  b: { kind: task }',
  '  right: { kind: collect }',
  '  again: { kind: cycle, ancestor: a }',
  'transitions:',
  '  start: [a]',
  '  a: [left]',
  '  left: [b]',
  '  b: [right]',
  '  right: [{ to: again, when: "$count(right.output) > 0" }]',
);

describe('spread and collect compile', () => {
  it('refuses two collects in one cycle that see each other, from the compiler (CircularCollectError)', () => {
    const problem = problemMatching(TWO_COLLECTS, /CircularCollectError/);
    expect(problem).toMatchObject({ activity: 'left', line: 5 });
    expect(problem.message).toMatch(/collects left and right are in one cycle/);
  });

  it('compiles the same loop with one collect isolated in a scope', () => {
    const scoped = lines(
      'workflow: circular-scoped',
      'activities:',
      '  start: { kind: trigger }',
      '  a: { kind: task }',
      '  left: { kind: collect }',
      '  inner:',
      '    kind: scope',
      '    activities:',
      '      b: { kind: task }',
      '      right: { kind: collect }',
      '    transitions: { b: [right] }',
      '    output: "right.output"',
      '  again: { kind: cycle, ancestor: a }',
      'transitions:',
      '  start: [a]',
      '  a: [left]',
      '  left: [inner]',
      '  inner: [{ to: again, when: "$count(inner.output) > 0" }]',
    );
    const wf = compileWorkflow(scoped);
    // The scoped collect watches only its scope; the outer one sees the scope as one activity.
    expect(upstreamOf(wf, 'inner.right')).toEqual(['inner.b']);
    expect(upstreamOf(wf, 'left')).toEqual(['a', 'again', 'inner', 'start']);
  });

  it('refuses kinds that cannot run in many threads, and a way into the threads from outside', () => {
    const base = lines(
      'workflow: threads',
      'activities:',
      '  start: { kind: trigger }',
      '  fan: { kind: spread, items: "[1, 2]" }',
      '  work: { kind: hook, signal: go }',
      '  side: { kind: task }',
      '  gather: { kind: collect }',
      'transitions: { start: [fan, side], fan: [work], work: [gather], side: [work] }',
    );
    problemMatching(base, /a hook activity cannot run in the threads of spread "fan"/);
    problemMatching(base, /work runs in the threads of spread "fan", but side leads to it/);
  });

  it('refuses min above max', () => {
    problemMatching(
      lines(
        'workflow: minmax',
        'activities:',
        '  start: { kind: trigger }',
        '  gather: { kind: collect, min: 3, max: 2 }',
        'transitions: { start: [gather] }',
      ),
      /min \(3\) is more than max \(2\)/,
    );
  });
});
