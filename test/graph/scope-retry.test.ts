/**
 * A scope's `retry:` compiles to its controller (TaskFlow's Times, ForEach,
 * ParameterizedForEach, AlwaysRevert, AlwaysRevertAll); inner expressions may read
 * `retry`; a `for_each` expression is checked like any other expression.
 */
import { describe, expect, it } from 'vitest';
import { WorkflowDefinitionError } from '../../src/core/errors.js';
import { compileWorkflow } from '../../src/engine/compiler.js';

const doc = (retry: string) => `
workflow: r
activities:
  start: { kind: trigger }
  pay:
    kind: scope
    retry: ${retry}
    activities:
      charge: { kind: task, input: "{ 'card': retry.value, 'n': retry.attempt }" }
transitions: { start: [pay] }
`;

const compiled = (retry: string) =>
  (compileWorkflow(doc(retry)).activities.pay as { retry?: unknown }).retry;

describe('scope retry controllers (compile)', () => {
  it('compiles each controller', () => {
    expect(compiled('{ times: 3 }')).toEqual({ kind: 'times', times: 3 });
    expect(compiled('{ for_each: [1, 2] }')).toEqual({ kind: 'for_each', values: [1, 2] });
    expect(compiled('{ for_each: "input.cards" }')).toEqual({
      kind: 'for_each',
      expression: 'input.cards',
    });
    expect(compiled('revert')).toEqual({ kind: 'revert' });
    expect(compiled('revert_all')).toEqual({ kind: 'revert_all' });
  });

  it('refuses a bad controller and a for_each expression reading an unknown name', () => {
    expect(() => compileWorkflow(doc('{ for_each: "chrage.output" }'))).toThrow(/chrage/);
    expect(() => compileWorkflow(doc('{ times: 0 }'))).toThrow(WorkflowDefinitionError);
    expect(() => compileWorkflow(doc('sometimes'))).toThrow(WorkflowDefinitionError);
    expect(() => compileWorkflow(doc('{ for_each: [] }'))).toThrow(WorkflowDefinitionError);
  });
});
