/**
 * A task queue's key given as a JSONata expression over `{ input }` (the task's input),
 * as `weft worker --task-queue-key charge=input.customer` gives it. It is read inside the
 * claim's transaction, under the queue's lock, so it must be provably cheap (paths,
 * filters, operators, constructors and linear built-ins: graph/expression-cost.ts); any
 * other is refused when the worker starts. `null` (no match) is the key `''`; a value
 * that is not a string is its canonical JSON text, as a workflow file's queue key is.
 */
import { canonicalJson } from '../core/canonical-json.js';
import { ValidationError } from '../core/errors.js';
import { isCheapExpression } from '../graph/expression-cost.js';
import { compileExpression, evaluateExpression } from '../graph/expressions.js';

/** The key function of expression `source` for task `task`'s queue. */
export function expressionKey(source: string, task: string): (input: unknown) => Promise<string> {
  const where = `task ${task} queue key`;
  compileExpression(source, where);
  if (!isCheapExpression(source)) {
    throw new ValidationError(
      `queue key ${JSON.stringify(source)} is read inside a claim's transaction, so it must be a cheap expression: paths, filters, operators and linear built-ins such as $string or $lowercase`,
      where,
    );
  }
  return async (input) => {
    const value = await evaluateExpression(source, { input }, where);
    if (value === null) return '';
    return typeof value === 'string' ? value : canonicalJson(value);
  };
}
