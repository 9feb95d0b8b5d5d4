/**
 * Tests of failure paths (on: error, reverts, scopes' retry controllers) want a failing
 * task to fail at once, not after the default three attempts: this gives every task of a
 * compiled workflow that sets no `retry:` of its own the policy `{ attempts: 1 }`, as if
 * the file had said so.
 */
import { NO_RETRY } from '../../src/core/retry-policy.js';
import type { CompiledWorkflow } from '../../src/engine/kinds/index.js';

/** `wf` with every task that has no retry policy run once. */
export function singleAttempt(wf: CompiledWorkflow): CompiledWorkflow {
  const activities = Object.fromEntries(
    Object.entries(wf.activities).map(([id, a]) => [
      id,
      a.kind === 'task' && a.retry === undefined ? { ...a, retry: { ...NO_RETRY } } : a,
    ]),
  );
  return { ...wf, activities } as CompiledWorkflow;
}
