/**
 * Scopes, flattened (issues 11 and 12): a `kind: scope` activity holds its own
 * `activities` and `transitions`. Before any other check the compiler lifts every inner
 * activity into the one activity map under a qualified id `<scope>.<inner>` (nested:
 * `a.b.c`), and every inner transition into the one transition map with qualified ids, so
 * the shape, graph and field checks — and the engine — see one flat graph. Activity ids
 * cannot contain `.`, so a qualified id is unambiguous.
 *
 * Problems are found here against the flat document; {@link originalPath} maps a flat
 * document path back to where it is written in the file, so every problem keeps its file,
 * line and activity.
 */
import type { DocumentPath } from './source-text.js';

/** One scope of a flattened document. */
export interface ScopeShape {
  /** The scope's qualified id. */
  id: string;
  /** The enclosing scope's qualified id, when it is nested. */
  parent?: string;
  /** Qualified ids of its direct children, in file order. */
  members: string[];
  /** Its members with no incoming inner transition: those its start enters. */
  entries: string[];
}

/** A document with its scopes flattened, and what the flattening found. */
export interface FlatDocument {
  /** The document with every inner activity and transition lifted to the top. */
  value: unknown;
  /** Each scope, by qualified id. */
  scopes: Map<string, ScopeShape>;
  /** The enclosing scope of each inner activity, by qualified id. */
  scopeOf: Map<string, string>;
  /** Problems of the scope structure: a path in the flat document and a message. */
  problems: { path: DocumentPath; message: string }[];
}

/** The kind that holds inner activities. */
export const SCOPE_KIND = 'scope';

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The last segment of a qualified id: how its siblings name it. */
export function shortId(id: string): string {
  const dot = id.lastIndexOf('.');
  return dot < 0 ? id : id.slice(dot + 1);
}

/**
 * Maps a path of the flat document to the path it is written at: `activities.a.b.x` is
 * `activities.a.activities.b.x`, and `transitions.a.b.0` is
 * `activities.a.transitions.b.0`.
 */
export function originalPath(path: DocumentPath): DocumentPath {
  const [section, id, ...rest] = path;
  if ((section !== 'activities' && section !== 'transitions') || typeof id !== 'string') {
    return path;
  }
  const parts = id.split('.');
  if (parts.length === 1) return path;
  // `activities.a` then for each further segment `activities.b` (or `transitions.b` last).
  const rebuilt: (string | number)[] = ['activities', parts[0] as string];
  for (let i = 1; i < parts.length; i++) {
    rebuilt.push(i === parts.length - 1 ? section : 'activities', parts[i] as string);
  }
  return [...rebuilt, ...rest];
}

/**
 * Flattens the scopes of a raw workflow document (whatever it holds; never throws).
 * `references` names the activity fields that hold a sibling activity's id (a cycle's
 * `ancestor`): inside a scope they are qualified too, and must name a sibling.
 */
export function flattenScopes(value: unknown, references: readonly string[]): FlatDocument {
  const scopes = new Map<string, ScopeShape>();
  const scopeOf = new Map<string, string>();
  const problems: FlatDocument['problems'] = [];
  if (!isPlainObject(value) || !isPlainObject(value.activities)) {
    return { value, scopes, scopeOf, problems };
  }
  const activities: Record<string, unknown> = {};
  const transitions: Record<string, unknown> = isPlainObject(value.transitions)
    ? { ...value.transitions }
    : {};
  for (const from of Object.keys(transitions)) {
    refuseCrossing(from, transitions[from], ['transitions', from], problems);
  }

  const lift = (map: Record<string, unknown>, scope: string | undefined): string[] => {
    const ids: string[] = [];
    for (const [id, raw] of Object.entries(map)) {
      const qualified = scope === undefined ? id : `${scope}.${id}`;
      if (scope !== undefined && id.includes('.')) {
        problems.push({
          path: ['activities', scope],
          message: `activity id ${JSON.stringify(id)} in scope ${scope} contains ".", which no activity id may`,
        });
        continue;
      }
      ids.push(qualified);
      if (scope !== undefined) scopeOf.set(qualified, scope);
      activities[qualified] = raw;
      if (!isPlainObject(raw)) continue;
      if (scope !== undefined && raw.kind === 'trigger') {
        problems.push({
          path: ['activities', qualified, 'kind'],
          message: `a scope holds no trigger: ${qualified} is one`,
        });
      }
      if (scope !== undefined) {
        for (const field of references) {
          const target = raw[field];
          if (typeof target !== 'string') continue;
          if (!Object.hasOwn(map, target)) {
            problems.push({
              path: ['activities', qualified, field],
              message: `${field} ${JSON.stringify(target)} is not an activity of scope ${scope}: it must be in the same scope as ${qualified}`,
            });
          } else {
            activities[qualified] = { ...raw, [field]: `${scope}.${target}` };
          }
        }
      }
      if (raw.kind !== SCOPE_KIND) continue;
      const inner = isPlainObject(raw.activities) ? raw.activities : {};
      const members = lift(inner, qualified);
      const innerTransitions = isPlainObject(raw.transitions) ? raw.transitions : {};
      const targeted = new Set<string>();
      for (const [from, list] of Object.entries(innerTransitions)) {
        const key = `${qualified}.${from}`;
        const at = ['transitions', key];
        if (!Object.hasOwn(inner, from)) {
          problems.push({
            path: at,
            message: `transitions from ${JSON.stringify(from)}, which is not an activity of scope ${qualified}: a transition may not cross a scope boundary`,
          });
          continue;
        }
        if (!Array.isArray(list)) {
          transitions[key] = list;
          continue;
        }
        transitions[key] = list.map((item: unknown, index) => {
          const to = typeof item === 'string' ? item : isPlainObject(item) ? item.to : undefined;
          if (typeof to !== 'string') return item;
          if (!Object.hasOwn(inner, to)) {
            problems.push({
              path: [...at, index],
              message: `transition ${from} -> ${to} leaves scope ${qualified}: a transition may not cross a scope boundary (${to} is not one of its activities)`,
            });
            return item;
          }
          targeted.add(to);
          const qualifiedTo = `${qualified}.${to}`;
          return typeof item === 'string' ? qualifiedTo : { ...(item as object), to: qualifiedTo };
        });
      }
      scopes.set(qualified, {
        id: qualified,
        ...(scope !== undefined && { parent: scope }),
        members,
        entries: members.filter((m) => !targeted.has(shortId(m))),
      });
    }
    return ids;
  };

  for (const id of Object.keys(value.activities)) {
    if (id.includes('.')) {
      problems.push({
        path: ['activities', id],
        message: `activity id ${JSON.stringify(id)} contains "." (qualified ids are for activities inside a scope)`,
      });
    }
  }
  lift(value.activities, undefined);
  return {
    value: {
      ...value,
      activities,
      ...(Object.keys(transitions).length > 0 || value.transitions !== undefined
        ? { transitions }
        : {}),
    },
    scopes,
    scopeOf,
    problems,
  };
}

/** A top-level transition may not name an activity inside a scope. */
function refuseCrossing(
  from: string,
  list: unknown,
  at: DocumentPath,
  problems: FlatDocument['problems'],
): void {
  if (from.includes('.')) {
    problems.push({
      path: at,
      message: `transitions from ${JSON.stringify(from)}, inside a scope: a transition may not cross a scope boundary`,
    });
  }
  if (!Array.isArray(list)) return;
  list.forEach((item: unknown, index) => {
    const to = typeof item === 'string' ? item : isPlainObject(item) ? item.to : undefined;
    if (typeof to === 'string' && to.includes('.')) {
      problems.push({
        path: [...at, index],
        message: `transition ${from} -> ${to} enters a scope: a transition may not cross a scope boundary (transition to the scope itself)`,
      });
    }
  });
}

/** The names an expression may read from the top of its data, as a lookup. */
export interface VisibleNames extends Iterable<string> {
  has(name: string): boolean;
}

/**
 * The names an expression evaluated in `scope` (an inner activity's enclosing scope, or a
 * scope's own `output`) may read from the top of its data: every top-level activity, and
 * at `scope` and each scope around it its members by short id (an inner name shadows an
 * outer one), and `extra`. `input` is always readable besides. The top-level set is
 * shared, not copied, so asking for every activity of a large workflow stays linear.
 */
export function visibleNames(
  scope: string | undefined,
  topLevel: ReadonlySet<string>,
  scopes: ReadonlyMap<string, { members: readonly string[] }>,
  scopeOf: ReadonlyMap<string, string>,
  extra: readonly string[] = [],
): VisibleNames {
  const inner = new Set<string>(extra);
  for (const s of scopeChain(scope, scopeOf)) {
    for (const m of scopes.get(s)?.members ?? []) inner.add(shortId(m));
  }
  return {
    has: (name) => topLevel.has(name) || inner.has(name),
    *[Symbol.iterator]() {
      yield* topLevel;
      for (const name of inner) if (!topLevel.has(name)) yield name;
    },
  };
}

/** `scope` and the scopes around it, outermost first (empty for the top level). */
export function scopeChain(
  scope: string | undefined,
  scopeOf: ReadonlyMap<string, string>,
): string[] {
  const chain: string[] = [];
  for (let s = scope; s !== undefined; s = scopeOf.get(s)) chain.unshift(s);
  return chain;
}
