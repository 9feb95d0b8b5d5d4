/**
 * Field rules beyond the shape: every JSONata expression parses (the error names the
 * field, JSONata's message and the position) and reads from the top of its data only
 * `input` and activity ids (a typo such as `chrage.output` is an error), durations are in
 * range, and `input:` is a valid JSON Schema. Which activity fields are expressions and
 * durations each kind declares ({@link KindSpec}).
 */
import type Jsonata from 'jsonata';
import type { Draft } from './draft.js';
import { DURATION_PATTERN, parseDuration } from './durations.js';
import { expressionRoots } from './expression-roots.js';
import { describeJsonataError } from './expressions.js';
import { checkInputSchema } from './job-input.js';
import { jsonata } from './jsonata-module.js';
import type { KindSpec } from './kind-spec.js';
import type { KindTable } from './kind-table.js';
import type { ProblemList } from './problem-list.js';
import { type VisibleNames, visibleNames } from './scopes.js';

/** Checks one expression field: it parses and reads only `input` and activity ids. */
export function checkExpression(
  source: unknown,
  path: (string | number)[],
  problems: ProblemList,
  ids: VisibleNames,
): void {
  if (typeof source !== 'string' || source.trim() === '') return;
  const field = String(path[path.length - 1]);
  let expression: Jsonata.Expression;
  try {
    expression = jsonata(source);
  } catch (error) {
    const { message, code, position } = describeJsonataError(error);
    const at = position !== undefined ? ` at position ${position}` : '';
    problems.add(path, `bad JSONata in ${field}${at}${code ? ` (${code})` : ''}: ${message}`);
    return;
  }
  for (const { name, position } of expressionRoots(expression.ast())) {
    if (name === 'input' || ids.has(name)) continue;
    const at = position !== undefined ? ` at position ${position - name.length}` : '';
    const known = [...ids].sort();
    problems.add(
      path,
      known.length > 0
        ? `${field}${at} reads ${JSON.stringify(name)}, which is neither \`input\` nor an activity id (${known.join(', ')})`
        : `${field}${at} reads ${JSON.stringify(name)}; it can read only \`input\``,
    );
  }
}

/** Checks a duration field's range (shapes the schema rejects are reported there). */
export function checkDuration(
  value: unknown,
  path: (string | number)[],
  problems: ProblemList,
): void {
  // Shapes the schema already rejects are reported there; here only out-of-range strings.
  if (
    typeof value === 'string' &&
    DURATION_PATTERN.test(value) &&
    parseDuration(value) === undefined
  ) {
    problems.add(
      path,
      `bad duration ${JSON.stringify(value)} in ${String(path[path.length - 1])}: at most 1000d`,
    );
  }
}

/** Checks each duration field the kind declares, at any depth of the activity. */
function checkDurations(
  spec: KindSpec,
  value: unknown,
  path: (string | number)[],
  problems: ProblemList,
): void {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return;
  for (const [key, inner] of Object.entries(value)) {
    if (spec.durations?.includes(key)) checkDuration(inner, [...path, key], problems);
    else checkDurations(spec, inner, [...path, key], problems);
  }
}

const topLevelByDraft = new WeakMap<Draft, ReadonlySet<string>>();
const namesByDraft = new WeakMap<Draft, Map<string | undefined, VisibleNames>>();

/**
 * The names an expression evaluated in `scope` may read (see `visibleNames`), with
 * `retry` inside a scope (`{ value, attempt }` of a retry controller around); built once
 * per scope of a draft, over one shared set of its top-level ids.
 */
export function namesVisibleIn(draft: Draft, scope: string | undefined): VisibleNames {
  let topLevel = topLevelByDraft.get(draft);
  if (!topLevel) {
    topLevel = new Set([...draft.activities.keys()].filter((id) => !draft.scopeOf.has(id)));
    topLevelByDraft.set(draft, topLevel);
  }
  let byScope = namesByDraft.get(draft);
  if (!byScope) {
    byScope = new Map();
    namesByDraft.set(draft, byScope);
  }
  let names = byScope.get(scope);
  if (!names) {
    const extra = scope === undefined ? [] : ['retry'];
    names = visibleNames(scope, topLevel, draft.scopes, draft.scopeOf, extra);
    byScope.set(scope, names);
  }
  return names;
}

/** Checks expressions, durations (the job's `timeout:` too) and the input schema. */
export function checkFields(
  draft: Draft,
  document: unknown,
  problems: ProblemList,
  kinds: KindTable,
): void {
  const root = (document ?? {}) as Record<string, unknown>;
  const namesIn = (scope: string | undefined) => namesVisibleIn(draft, scope);
  const ids = namesIn(undefined);
  for (const { id, kind, fields } of draft.activities.values()) {
    const spec = kind === undefined ? undefined : kinds.specs.get(kind);
    if (!spec) continue;
    const at = ['activities', id];
    const names = namesIn(draft.scopeOf.get(id));
    for (const field of spec.expressions ?? [])
      checkExpression(fields[field], [...at, field], problems, names);
    for (const field of spec.innerExpressions ?? [])
      checkExpression(fields[field], [...at, field], problems, namesIn(id));
    checkDurations(spec, fields, at, problems);
  }
  for (const t of draft.transitions) {
    checkExpression(t.when, [...t.path, 'when'], problems, namesIn(draft.scopeOf.get(t.from)));
  }
  if (typeof document === 'object' && document !== null && !Array.isArray(document)) {
    checkExpression(root.output, ['output'], problems, ids);
    checkDuration(root.timeout, ['timeout'], problems);
    if (parseDuration(root.timeout) === 0) {
      problems.add(
        ['timeout'],
        'a job timeout of 0 would end every job at its start: give more than 0',
      );
    }
    const input = root.input;
    if (input !== null && typeof input === 'object' && !Array.isArray(input)) {
      for (const message of checkInputSchema(input)) problems.add(['input'], message);
    }
  }
}
