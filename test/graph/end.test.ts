/** `end:` names the activity that finishes the job; what the compiler refuses. */
import { describe, expect, it } from 'vitest';
import { compileWorkflow } from '../../src/engine/compiler.js';
import { lines, problemMatching } from './helpers.js';

const base = (end: string) =>
  lines(
    'workflow: ends',
    'activities:',
    '  start: { kind: trigger }',
    '  work: { kind: task }',
    '  pay: { kind: scope, activities: { charge: { kind: task } } }',
    'transitions: { start: [work], work: [pay] }',
    `end: ${end}`,
  );

describe('end', () => {
  it('compiles into the workflow', () => {
    expect(compileWorkflow(base('pay')).end).toBe('pay');
  });

  it('refuses an unknown activity, the trigger and an activity inside a scope', () => {
    expect(problemMatching(base('nope'), /is not an activity/)).toMatchObject({
      line: 7,
      path: 'end',
    });
    problemMatching(base('start'), /is the trigger/);
    problemMatching(base('pay.charge'), /inside a scope/);
  });
});
