/** Shared helpers for the graph tests. */
import { expect } from 'vitest';
import { type DefinitionProblem, WorkflowDefinitionError } from '../../src/core/errors.js';
import { compileWorkflow } from '../../src/engine/compiler.js';
import type { CompiledWorkflow } from '../../src/engine/kinds/index.js';

/** Joins lines into a file's text, so a test can count lines by eye. */
export function lines(...text: string[]): string {
  return `${text.join('\n')}\n`;
}

/** The problems compiling `definition` reports; fails the test when it compiles. */
export function problemsOf(definition: unknown, source = 'test.yaml'): DefinitionProblem[] {
  try {
    compileWorkflow(definition, { source });
  } catch (error) {
    expect(error).toBeInstanceOf(WorkflowDefinitionError);
    return (error as WorkflowDefinitionError).problems;
  }
  throw new Error('expected the definition to be rejected');
}

/** The one problem matching `message`; fails the test when there is not exactly one. */
export function problemMatching(
  definition: unknown,
  message: RegExp,
  source?: string,
): DefinitionProblem {
  const problems = problemsOf(definition, source);
  const matching = problems.filter((p) => message.test(p.message));
  expect(matching, JSON.stringify(problems, null, 2)).toHaveLength(1);
  return matching[0]!;
}

/** A compiled workflow without the parts that depend on where it came from. */
export function withoutSource(wf: CompiledWorkflow): CompiledWorkflow {
  const { source: _source, ...rest } = wf;
  const activities = Object.fromEntries(
    Object.entries(rest.activities).map(([id, { line: _line, ...activity }]) => [id, activity]),
  );
  return { ...rest, activities };
}
