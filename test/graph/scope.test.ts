/** Compiling `kind: scope`: flattened under qualified ids, and what a scope refuses. */
import { describe, expect, it } from 'vitest';
import { compileWorkflow } from '../../src/engine/compiler.js';
import { originalPath } from '../../src/graph/scopes.js';
import { lines, problemMatching } from './helpers.js';

const scoped = lines(
  'workflow: scoped',
  'activities:',
  '  start: { kind: trigger }',
  '  pay:',
  '    kind: scope',
  '    activities:',
  '      reserve: { kind: task }',
  '      charge: { kind: task, input: "reserve.output" }',
  '      again: { kind: cycle, ancestor: reserve, max: 2 }',
  '    transitions:',
  '      reserve: [charge]',
  '      charge: [{ to: again, when: "charge.output = false" }]',
  'transitions: { start: [pay] }',
);

describe('scope compile', () => {
  it('flattens members under qualified ids, each naming its scope, into one collation layout', () => {
    const wf = compileWorkflow(scoped);
    expect(wf.order).toEqual(['pay', 'pay.again', 'pay.charge', 'pay.reserve', 'start']);
    expect(wf.activities['pay.charge']).toMatchObject({
      scope: 'pay',
      task: 'charge',
      position: 2,
    });
    expect(wf.activities['pay.again']).toMatchObject({ ancestor: 'pay.reserve', scope: 'pay' });
    expect(wf.activities.pay).toMatchObject({
      kind: 'scope',
      members: ['pay.again', 'pay.charge', 'pay.reserve'],
      entries: ['pay.reserve'],
    });
    expect(wf.transitions).toContainEqual({ from: 'pay.reserve', to: 'pay.charge', on: 'success' });
    expect(wf.activities['pay.charge']?.line).toBe(8);
  });

  it('maps a flat path back to where the file writes it', () => {
    expect(originalPath(['activities', 'a.b.c', 'input'])).toEqual([
      'activities',
      'a',
      'activities',
      'b',
      'activities',
      'c',
      'input',
    ]);
    expect(originalPath(['transitions', 'a.b', 0])).toEqual([
      'activities',
      'a',
      'transitions',
      'b',
      0,
    ]);
  });

  it('refuses a transition out of a scope, naming file, line and activity', () => {
    const problem = problemMatching(
      scoped.replace('reserve: [charge]', 'reserve: [charge, start]'),
      /may not cross a scope boundary/,
    );
    expect(problem).toMatchObject({ file: 'test.yaml', line: 11, activity: 'pay.reserve' });
  });

  it('refuses a transition into a scope member from outside', () => {
    const problem = problemMatching(
      scoped.replace('start: [pay]', 'start: [pay, pay.charge]'),
      /may not cross a scope boundary/,
    );
    expect(problem).toMatchObject({ line: 13, activity: 'start' });
  });

  it("refuses a cycle whose ancestor is outside the cycle's scope", () => {
    const problem = problemMatching(
      scoped.replace('ancestor: reserve', 'ancestor: start'),
      /must be in the same scope/,
    );
    expect(problem).toMatchObject({ line: 9, activity: 'pay.again' });
  });

  it('refuses a trigger inside a scope and an expression reading a name it cannot see', () => {
    problemMatching(
      scoped.replace('reserve: { kind: task }', 'reserve: { kind: trigger }'),
      /holds no trigger/,
    );
    const problem = problemMatching(
      scoped.replace('"reserve.output"', '"missing.output"'),
      /reads "missing"/,
    );
    expect(problem).toMatchObject({
      line: 8,
      activity: 'pay.charge',
      path: 'activities.pay.activities.charge.input',
    });
  });

  it('lets outer expressions read the scope but not its members by short id', () => {
    problemMatching(
      lines(
        'workflow: outer-read',
        'activities:',
        '  start: { kind: trigger }',
        '  pay: { kind: scope, activities: { charge: { kind: task } }, output: "charge.output" }',
        '  after: { kind: task, input: "charge.output" }',
        'transitions: { start: [pay], pay: [after] }',
      ),
      /reads "charge"/,
    );
  });
});
