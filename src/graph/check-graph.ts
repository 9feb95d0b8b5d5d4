/**
 * The graph rules of a workflow definition: exactly one trigger and nothing flowing into
 * it; transitions between known activities; no loop except through a `cycle` activity;
 * every activity reachable from the trigger; a cycle's ancestor upstream of it; outcomes
 * each kind can have; no waiting self-await. Each broken rule is one located problem.
 */
import { reachable } from './analysis.js';
import type { Draft, DraftTransition } from './draft.js';
import type { ProblemList } from './problem-list.js';

/** Kinds that can time out, and so fire `on: timeout` transitions (when a timeout is set). */
const TIMEOUT_KINDS = new Set(['task', 'hook']);
/** Kinds that never fail, and so never fire `on: error` transitions. */
const NEVER_FAIL_KINDS = new Set(['trigger', 'sleep']);

function targetPath(t: DraftTransition): (string | number)[] {
  return t.detailed ? [...t.path, 'to'] : t.path;
}

/** Adjacency over transitions whose both ends are known activities. */
function adjacency(draft: Draft): Map<string, string[]> {
  const next = new Map<string, string[]>();
  for (const id of draft.activities.keys()) next.set(id, []);
  for (const t of draft.transitions) {
    if (draft.activities.has(t.from) && draft.activities.has(t.to)) next.get(t.from)?.push(t.to);
  }
  return next;
}

/** Every id reachable from `start` in `next`, `start` included (the graph's one walk). */
function reach(next: Map<string, string[]>, start: string): Set<string> {
  return reachable(start, (id) => next.get(id) ?? []);
}

/** Strongly connected components (Tarjan, iterative), each as a set of ids. */
function components(next: Map<string, string[]>): Set<string>[] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const out: Set<string>[] = [];
  let counter = 0;
  for (const root of next.keys()) {
    if (index.has(root)) continue;
    const work: { id: string; child: number }[] = [{ id: root, child: 0 }];
    index.set(root, counter);
    low.set(root, counter++);
    stack.push(root);
    onStack.add(root);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const children = next.get(frame.id) ?? [];
      if (frame.child < children.length) {
        const to = children[frame.child++]!;
        if (!index.has(to)) {
          index.set(to, counter);
          low.set(to, counter++);
          stack.push(to);
          onStack.add(to);
          work.push({ id: to, child: 0 });
        } else if (onStack.has(to)) {
          low.set(frame.id, Math.min(low.get(frame.id)!, index.get(to)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.id, Math.min(low.get(parent.id)!, low.get(frame.id)!));
      if (low.get(frame.id) === index.get(frame.id)) {
        const component = new Set<string>();
        let id: string | undefined;
        do {
          id = stack.pop()!;
          onStack.delete(id);
          component.add(id);
        } while (id !== frame.id);
        out.push(component);
      }
    }
  }
  return out;
}

/** A path from `from` to `to` inside `within` (breadth first), both included. */
function pathWithin(
  next: Map<string, string[]>,
  from: string,
  to: string,
  within: Set<string>,
): string[] {
  const previous = new Map<string, string>();
  const queue = [from];
  const seen = new Set([from]);
  for (let i = 0; i < queue.length; i++) {
    const id = queue[i]!;
    if (id === to) break;
    for (const n of next.get(id) ?? []) {
      if (within.has(n) && !seen.has(n)) {
        seen.add(n);
        previous.set(n, id);
        queue.push(n);
      }
    }
  }
  const path = [to];
  for (let id = previous.get(to); id !== undefined; id = previous.get(id)) path.unshift(id);
  return path;
}

function checkTransitions(draft: Draft, problems: ProblemList, trigger: string | undefined): void {
  for (const from of draft.sources) {
    if (!draft.activities.has(from)) {
      problems.add(
        ['transitions', from],
        `transitions from unknown activity ${JSON.stringify(from)}`,
      );
    }
  }
  const seen = new Set<string>();
  for (const t of draft.transitions) {
    const source = draft.activities.get(t.from);
    if (!draft.activities.has(t.to)) {
      problems.add(targetPath(t), `transition to unknown activity ${JSON.stringify(t.to)}`);
    } else if (t.to === trigger) {
      problems.add(
        targetPath(t),
        `transition into the trigger ${JSON.stringify(t.to)}: nothing may flow into a trigger`,
      );
    }
    const key = JSON.stringify([t.from, t.to, t.on, t.when]);
    if (seen.has(key)) problems.add(t.path, `duplicate transition ${t.from} -> ${t.to}`);
    seen.add(key);
    if (!source?.kind || t.on === undefined) continue;
    const onPath = t.detailed ? [...t.path, 'on'] : t.path;
    if (source.kind === 'cycle' && t.on !== 'error') {
      problems.add(
        onPath,
        `a cycle activity re-enters its ancestor and has no ${t.on} outcome; its only transitions are on: error (taken when max is exceeded)`,
      );
    } else if (t.on === 'timeout' && !TIMEOUT_KINDS.has(source.kind)) {
      problems.add(onPath, `on: timeout from a ${source.kind} activity, which has no timeout`);
    } else if (t.on === 'timeout' && source.fields.timeout === undefined) {
      problems.add(onPath, `on: timeout from ${JSON.stringify(t.from)}, which sets no timeout`);
    } else if (t.on === 'error' && NEVER_FAIL_KINDS.has(source.kind)) {
      problems.add(onPath, `on: error from a ${source.kind} activity, which never fails`);
    }
  }
}

function distancesFrom(
  next: Map<string, string[]>,
  start: string | undefined,
): Map<string, number> {
  const distance = new Map<string, number>();
  if (start === undefined) return distance;
  distance.set(start, 0);
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const id = queue[i]!;
    for (const to of next.get(id) ?? []) {
      if (!distance.has(to)) {
        distance.set(to, distance.get(id)! + 1);
        queue.push(to);
      }
    }
  }
  return distance;
}

function checkLoops(
  draft: Draft,
  problems: ProblemList,
  next: Map<string, string[]>,
  trigger?: string,
): void {
  const distance = distancesFrom(next, trigger);
  const order = [...draft.activities.keys()];
  for (const component of components(next)) {
    // A loop through the trigger is already reported as a transition into the trigger.
    if (trigger !== undefined && component.has(trigger)) continue;
    const inside = draft.transitions.filter((t) => component.has(t.from) && component.has(t.to));
    if (component.size === 1 && !inside.some((t) => t.from === t.to)) continue;
    // The loop's head is the member nearest the trigger; the transition back to it closes the loop.
    const rank = (id: string) => distance.get(id) ?? Number.MAX_SAFE_INTEGER;
    const head = [...component].sort(
      (a, b) => rank(a) - rank(b) || order.indexOf(a) - order.indexOf(b),
    )[0]!;
    const back = inside.find((t) => t.to === head)!;
    const loop = [...pathWithin(next, head, back.from, component), head];
    problems.add(
      targetPath(back),
      `loop ${loop.join(' -> ')} does not go through a cycle activity: replace the transition ${back.from} -> ${head} with one to a { kind: cycle, ancestor: ${head} } activity`,
    );
  }
}

function checkCycleAndAwait(
  draft: Draft,
  problems: ProblemList,
  next: Map<string, string[]>,
  trigger?: string,
): void {
  for (const activity of draft.activities.values()) {
    const { id, kind, fields } = activity;
    if (kind === 'cycle' && typeof fields.ancestor === 'string') {
      const ancestor = fields.ancestor;
      const at = ['activities', id, 'ancestor'];
      if (!draft.activities.has(ancestor)) {
        problems.add(at, `ancestor ${JSON.stringify(ancestor)} is not an activity`);
      } else if (ancestor === id) {
        problems.add(at, 'a cycle activity cannot re-enter itself');
      } else if (ancestor === trigger) {
        problems.add(at, `a cycle cannot re-enter the trigger ${JSON.stringify(ancestor)}`);
      } else if (!reach(next, ancestor).has(id)) {
        problems.add(
          at,
          `ancestor ${JSON.stringify(ancestor)} is not upstream of ${JSON.stringify(id)}`,
        );
      }
    }
    if (kind === 'await' && fields.workflow === draft.workflow && fields.await !== false) {
      problems.add(
        ['activities', id, 'workflow'],
        `awaits its own workflow ${JSON.stringify(draft.workflow)}: a job would wait on a copy of itself without end; use await: false to start a new job instead`,
      );
    }
  }
}

/** Checks the graph rules, adding a problem for each broken one. */
export function checkGraph(draft: Draft, problems: ProblemList): void {
  const triggers = [...draft.activities.values()]
    .filter((a) => a.kind === 'trigger')
    .map((a) => a.id);
  const trigger = triggers.length === 1 ? triggers[0] : undefined;
  if (triggers.length === 0 && draft.activities.size > 0) {
    problems.add(['activities'], 'no trigger: exactly one activity must have kind: trigger');
  }
  if (draft.hasActivityMap && draft.activities.size === 0)
    problems.add(['activities'], 'no activities: a workflow needs at least a trigger');
  for (const extra of triggers.slice(1)) {
    problems.add(
      ['activities', extra],
      `more than one trigger (${triggers.join(', ')}): a workflow has exactly one`,
    );
  }
  checkTransitions(draft, problems, trigger);
  const next = adjacency(draft);
  checkLoops(draft, problems, next, trigger);
  if (trigger !== undefined) {
    const reached = reach(next, trigger);
    for (const id of draft.activities.keys()) {
      if (!reached.has(id)) {
        problems.add(
          ['activities', id],
          `unreachable: no path from the trigger ${JSON.stringify(trigger)} leads here`,
        );
      }
    }
  }
  checkCycleAndAwait(draft, problems, next, trigger);
}
