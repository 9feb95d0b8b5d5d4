/**
 * The activities that run in the threads a spread (one per item) or a collect with `max`
 * (one per batch) opens: everything downstream of it up to the next collect. Each runs
 * once per thread, and its digit counts for all of them: it goes to 8 when the threads
 * open and stays there until every thread has passed it (`left` reaches 0), then shows
 * how they ended — 7 if one errored unhandled, else 6 if one ran, else 3 (all skipped).
 *
 * What may run there is limited for now: tasks and sleeps (a hook, await, cycle, scope or
 * another spread in those threads is a compile error), and nothing outside the threads
 * may lead into them.
 */

import { threadRegion } from '../../graph/analysis.js';
import type { Draft } from '../../graph/draft.js';
import type { GraphFacts } from '../../graph/kind-spec.js';
import type { ProblemList } from '../../graph/problem-list.js';

/** The kinds that can run in many threads at once. */
export const RUNS_IN_THREADS: ReadonlySet<string> = new Set(['task', 'sleep']);

/** True for an activity of kind `collect` in the draft. */
function isCollect(draft: Draft, id: string): boolean {
  return draft.activities.get(id)?.kind === 'collect';
}

/** Checks the activities `opener`'s threads run, adding a problem for each refused one. */
export function checkThreadRegion(
  opener: string,
  facts: GraphFacts,
  problems: ProblemList,
  what: string,
): void {
  const region = threadRegion(opener, facts.next, (id) => isCollect(facts.draft, id));
  const inside = new Set([opener, ...region]);
  for (const id of region) {
    const kind = facts.draft.activities.get(id)?.kind;
    if (kind !== undefined && !RUNS_IN_THREADS.has(kind)) {
      problems.add(
        ['activities', id],
        `a ${kind} activity cannot run in the threads of ${what} ${JSON.stringify(opener)} (downstream of it, before a collect): only ${[...RUNS_IN_THREADS].join(' and ')} can yet`,
      );
    }
  }
  for (const t of facts.draft.transitions) {
    if (inside.has(t.to) && t.to !== opener && !inside.has(t.from)) {
      problems.add(
        t.path,
        `${t.to} runs in the threads of ${what} ${JSON.stringify(opener)}, but ${t.from} leads to it from outside them`,
      );
    }
  }
}
