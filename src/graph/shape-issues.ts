/**
 * Turns zod's shape issues for a workflow document into problems a person can act on:
 * "unknown key "foo" for a task activity", "missing required field "duration"", "bad
 * duration "5x"", "unknown kind "job"" — each at the path where it is written.
 */
import type { z } from 'zod';
import { DURATION_HINT } from './durations.js';
import type { KindTable } from './kind-table.js';
import type { ProblemList } from './problem-list.js';
import type { DocumentPath } from './source-text.js';

type Issue = z.core.$ZodIssue;
type Path = (string | number)[];

/** The raw value at `path`, own properties only. */
export function valueAt(root: unknown, path: DocumentPath): unknown {
  let value = root;
  for (const segment of path) {
    if (value === null || typeof value !== 'object') return undefined;
    if (!Object.hasOwn(value, segment)) return undefined;
    value = (value as Record<string | number, unknown>)[segment];
  }
  return value;
}

/** A short description of a value's type for messages. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a map';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.slice(0, 60))}`;
  return `${typeof value} ${String(value)}`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** True when the path names a duration field of an activity (or its retry policy). */
function isDurationPath(path: Path, kinds: KindTable): boolean {
  const last = path[path.length - 1];
  return path[0] === 'activities' && typeof last === 'string' && kinds.durationFields.has(last);
}

function kindAt(root: unknown, activityPath: Path, kinds: KindTable): string | undefined {
  const kind = valueAt(root, [...activityPath, 'kind']);
  return typeof kind === 'string' && Object.hasOwn(kinds.fields, kind) ? kind : undefined;
}

function unknownKeyMessage(root: unknown, objectPath: Path, key: string, kinds: KindTable): string {
  const isActivity = objectPath.length === 2 && objectPath[0] === 'activities';
  const kind = isActivity ? kindAt(root, objectPath, kinds) : undefined;
  if (kind) {
    const allowed = kinds.fields[kind] ?? [];
    return `unknown key ${JSON.stringify(key)} for a ${kind} activity (allowed: ${allowed.join(', ')})`;
  }
  if (objectPath.length === 0) {
    return `unknown key ${JSON.stringify(key)} (allowed: workflow, version, description, input, activities, transitions, output, end)`;
  }
  return `unknown key ${JSON.stringify(key)}`;
}

/** Adds the problems of each zod issue to `problems`. */
export function addShapeIssues(
  issues: readonly Issue[],
  root: unknown,
  problems: ProblemList,
  kinds: KindTable,
  prefix: Path = [],
): void {
  for (const issue of issues) addIssue(issue, root, problems, kinds, prefix);
}

function addIssue(
  issue: Issue,
  root: unknown,
  problems: ProblemList,
  kinds: KindTable,
  prefix: Path,
): void {
  const path: Path = [...prefix, ...(issue.path as Path)];
  const raw = valueAt(root, path);
  const last = path[path.length - 1];

  if (issue.code === 'unrecognized_keys') {
    for (const key of issue.keys)
      problems.add([...path, key], unknownKeyMessage(root, path, key, kinds));
    return;
  }
  if (isDurationPath(path, kinds) && raw !== undefined) {
    problems.add(path, `bad duration ${JSON.stringify(raw)} in ${String(last)}: ${DURATION_HINT}`);
    return;
  }
  if (
    raw === undefined &&
    last !== undefined &&
    (issue.code === 'invalid_type' || issue.code === 'invalid_union')
  ) {
    problems.add(path, `missing required field ${JSON.stringify(String(last))}`);
    return;
  }
  if (
    issue.code === 'invalid_union' &&
    'note' in issue &&
    issue.note === 'No matching discriminator'
  ) {
    const kind = raw;
    problems.add(
      path,
      kind === undefined
        ? 'missing required field "kind"'
        : `unknown kind ${JSON.stringify(kind)}: expected one of ${kinds.names.join(', ')}`,
    );
    return;
  }
  if (issue.code === 'invalid_union') {
    // A transition item: follow the branch that matches the value's type.
    const branch = typeof raw === 'string' ? 0 : isPlainObject(raw) ? 1 : -1;
    const inner = branch >= 0 ? issue.errors[branch] : undefined;
    if (path[0] === 'transitions' && inner) {
      addShapeIssues(inner, root, problems, kinds, path);
      return;
    }
    problems.add(
      path,
      path[0] === 'transitions'
        ? `a transition is an activity id or a map { to, when?, on? }, got ${describeValue(raw)}`
        : `invalid value: ${describeValue(raw)}`,
    );
    return;
  }
  if (issue.code === 'invalid_type') {
    if (raw === undefined && last !== undefined) {
      problems.add(path, `missing required field ${JSON.stringify(String(last))}`);
    } else if (path.length === 0) {
      problems.add(
        path,
        `a workflow definition is a map with workflow, activities, …; got ${describeValue(raw)}`,
      );
    } else {
      problems.add(path, `expected ${issue.expected}, got ${describeValue(raw)}`);
    }
    return;
  }
  if (issue.code === 'invalid_key') {
    const inner = issue.issues[0]?.message ?? issue.message;
    const what = path[0] === 'activities' && path.length === 2 ? 'activity id' : 'key';
    problems.add(path, `bad ${what} ${JSON.stringify(String(last))}: ${inner}`);
    return;
  }
  if (issue.code === 'invalid_value') {
    const options = issue.values.map((v) => String(v)).join(', ');
    problems.add(path, `expected one of ${options}; got ${describeValue(raw)}`);
    return;
  }
  if (issue.code === 'invalid_format') {
    problems.add(path, `${issue.message}; got ${describeValue(raw)}`);
    return;
  }
  problems.add(path, `${issue.message}; got ${describeValue(raw)}`);
}
