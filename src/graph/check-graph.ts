/**
 * The graph rules of a workflow definition: exactly one trigger and nothing flowing into
 * it; transitions between known activities; no loop except through a `cycle` activity;
 * every activity reachable from the trigger; outcomes each kind can have; and each kind's
 * own rules (a cycle's ancestor upstream of it, no waiting self-await…). Each broken rule
 * is one located problem.
 */
import { reachable, upstreamIn } from './analysis.js';
import type { Draft, DraftTransition } from './draft.js';
import { defaultOutcomeProblem } from './kind-spec.js';
import type { KindTable } from './kind-table.js';
import type { ProblemList } from './problem-list.js';

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
  // A scope reaches its entries: its start enters them.
  for (const [scope, { entries }] of draft.scopes) {
    for (const entry of entries) if (draft.activities.has(entry)) next.get(scope)?.push(entry);
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

function checkTransitions(
  draft: Draft,
  problems: ProblemList,
  kinds: KindTable,
  trigger: string | undefined,
): void {
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
    const spec = kinds.specs.get(source.kind);
    const problem = (spec?.outcomeProblem ?? defaultOutcomeProblem)(t.on, source);
    if (problem) problems.add(t.detailed ? [...t.path, 'on'] : t.path, problem);
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
  const all = components(next);
  // Each transition inside one component, by component (one pass, not one per component).
  const componentOf = new Map<string, number>();
  all.forEach((component, i) => {
    for (const id of component) componentOf.set(id, i);
  });
  const insideOf = new Map<number, DraftTransition[]>();
  for (const t of draft.transitions) {
    const c = componentOf.get(t.from);
    if (c === undefined || c !== componentOf.get(t.to)) continue;
    const list = insideOf.get(c);
    if (list) list.push(t);
    else insideOf.set(c, [t]);
  }
  for (const [i, component] of all.entries()) {
    // A loop through the trigger is already reported as a transition into the trigger.
    if (trigger !== undefined && component.has(trigger)) continue;
    const inside = insideOf.get(i) ?? [];
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

/** `end:` names a top-level activity other than the trigger. */
function checkEnd(draft: Draft, problems: ProblemList, trigger: string | undefined): void {
  const end = draft.end;
  if (end === undefined) return;
  if (!draft.activities.has(end)) {
    problems.add(['end'], `end ${JSON.stringify(end)} is not an activity`);
  } else if (end === trigger) {
    problems.add(['end'], `end ${JSON.stringify(end)} is the trigger: the job would end at once`);
  } else if (draft.scopeOf.has(end)) {
    problems.add(
      ['end'],
      `end ${JSON.stringify(end)} is inside a scope: name a top-level activity`,
    );
  }
}

/** Checks the graph rules, adding a problem for each broken one. */
export function checkGraph(draft: Draft, problems: ProblemList, kinds: KindTable): void {
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
  checkTransitions(draft, problems, kinds, trigger);
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
  checkEnd(draft, problems, trigger);
  const reachCache = new Map<string, ReadonlySet<string>>();
  const previous = new Map<string, string[]>();
  const link = (from: string, to: string) => {
    const list = previous.get(to);
    if (list) list.push(from);
    else previous.set(to, [from]);
  };
  for (const [from, targets] of next) for (const to of targets) link(from, to);
  for (const activity of draft.activities.values()) {
    const ancestor = activity.fields.ancestor;
    if (typeof ancestor === 'string') link(activity.id, ancestor);
  }
  const upstreamCache = new Map<string, ReadonlySet<string>>();
  const upstreamOfDraft = (target: string): ReadonlySet<string> => {
    const scope = draft.scopeOf.get(target);
    const inside = (id: string): boolean => {
      if (scope === undefined) return true;
      for (let s = draft.scopeOf.get(id); s !== undefined; s = draft.scopeOf.get(s)) {
        if (s === scope) return true;
      }
      return false;
    };
    return upstreamIn(target, (id) => previous.get(id) ?? [], inside);
  };
  const facts = {
    draft,
    ...(trigger !== undefined && { trigger }),
    next: (id: string) => next.get(id) ?? [],
    upstream(target: string): ReadonlySet<string> {
      const known = upstreamCache.get(target);
      if (known) return known;
      const set = upstreamOfDraft(target);
      upstreamCache.set(target, set);
      return set;
    },
    reach(from: string): ReadonlySet<string> {
      const known = reachCache.get(from);
      if (known) return known;
      const set = reach(next, from);
      reachCache.set(from, set);
      return set;
    },
  };
  for (const activity of draft.activities.values()) {
    if (activity.kind !== undefined)
      kinds.specs.get(activity.kind)?.check?.(activity, facts, problems);
  }
}
