/**
 * Reads a workflow file's text (YAML, or JSON, which is valid YAML) with the `yaml`
 * package, keeping the syntax tree so every later problem can be pinned to a line:
 * {@link SourceText.locate} maps a document path such as `activities.charge.timeout` to the
 * line and column where it is written. Syntax errors, duplicate keys, unknown tags and
 * non-string keys become problems here.
 */
import {
  isMap,
  isPair,
  isScalar,
  isSeq,
  LineCounter,
  type Node,
  type Pair,
  parseDocument,
  visit,
  type YAMLMap,
} from 'yaml';
import type { DefinitionProblem } from '../core/errors.js';

/** A path into a workflow document: keys and list indexes. */
export type DocumentPath = readonly (string | number)[];

/** A line and column, both 1-based. */
export interface SourcePosition {
  line: number;
  column: number;
}

/** The result of reading a workflow file's text. */
export interface SourceText {
  /** The plain value the text holds; meaningful only when `readable`. */
  value: unknown;
  /** False when the text could not be read as one document (a syntax error, say). */
  readable: boolean;
  /** Problems found while reading, located, without `file` (the compiler adds it). */
  problems: DefinitionProblem[];
  /** Where the deepest existing node of `path` is written; a map entry is located at its key. */
  locate(path: DocumentPath): SourcePosition | undefined;
}

function keyOf(node: unknown): string | undefined {
  return isScalar(node) ? String(node.value) : undefined;
}

/** Each map's pairs by key, built once per map so locating every activity stays linear. */
const pairsByKey = new WeakMap<object, Map<string, Pair>>();

function pairOf(map: YAMLMap, key: string): Pair | undefined {
  let index = pairsByKey.get(map);
  if (!index) {
    index = new Map();
    // The last of duplicate keys is the one whose value is read.
    for (const pair of map.items) {
      const k = keyOf(pair.key);
      if (k !== undefined) index.set(k, pair);
    }
    pairsByKey.set(map, index);
  }
  return index.get(key);
}

function childAt(
  node: unknown,
  segment: string | number,
): { node: unknown; at?: number } | undefined {
  if (isMap(node)) {
    const pair = pairOf(node, String(segment));
    return pair && { node: pair.value, at: (pair.key as Node | null)?.range?.[0] };
  }
  if (isSeq(node) && typeof segment === 'number') {
    const item = node.items[segment] as Node | undefined;
    return item === undefined ? undefined : { node: item, at: item.range?.[0] };
  }
  return undefined;
}

function contains(node: unknown, offset: number): boolean {
  const range = (node as Node | null)?.range;
  return !!range && range[0] <= offset && offset < Math.max(range[1], range[0] + 1);
}

/** The document path of the innermost node around a character offset. */
function pathAt(root: unknown, offset: number): (string | number)[] {
  const path: (string | number)[] = [];
  let node = root;
  for (;;) {
    let next: unknown;
    if (isMap(node)) {
      for (const pair of node.items) {
        const key = keyOf(pair.key);
        const start = (pair.key as Node | null)?.range?.[0];
        const end =
          (pair.value as Node | null)?.range?.[1] ?? (pair.key as Node | null)?.range?.[1];
        if (key === undefined || start === undefined || end === undefined) continue;
        if (offset < start || offset >= Math.max(end, start + 1)) continue;
        path.push(key);
        if (contains(pair.value, offset)) next = pair.value;
        break;
      }
    } else if (isSeq(node)) {
      node.items.forEach((item, index) => {
        if (contains(item, offset)) {
          path.push(index);
          next = item;
        }
      });
    }
    if (next === undefined) return path;
    node = next;
  }
}

/** Reads a workflow file's text. Never throws: every failure is a problem. */
export function readSourceText(text: string): SourceText {
  const lineCounter = new LineCounter();
  // Duplicate keys are found below, in one pass: the parser's own check compares each key
  // with every earlier one of its map, which is quadratic in a map of thousands of activities.
  const doc = parseDocument(text, {
    lineCounter,
    prettyErrors: false,
    uniqueKeys: false,
    schema: 'core',
  });
  const position = (offset: number): SourcePosition => {
    const { line, col } = lineCounter.linePos(offset);
    return { line, column: col };
  };
  const problems: DefinitionProblem[] = [];
  const located = (path: (string | number)[]) => {
    const [section, id] = path;
    const activity =
      (section === 'activities' || section === 'transitions') && id !== undefined
        ? String(id)
        : undefined;
    return {
      ...(activity !== undefined && { activity }),
      ...(path.length > 0 && { path: path.join('.') }),
    };
  };
  let readable = true;

  const duplicateAt = (offset: number) => {
    const path = pathAt(doc.contents, offset);
    const last = path[path.length - 1];
    const message =
      path.length === 2 && path[0] === 'activities'
        ? `duplicate activity id ${JSON.stringify(last)}`
        : `duplicate key ${JSON.stringify(last)}`;
    problems.push({ message, ...position(offset), ...located(path) });
  };
  for (const error of doc.errors) {
    if (error.code === 'DUPLICATE_KEY') {
      duplicateAt(error.pos[0]);
      continue;
    }
    readable = false;
    const path = pathAt(doc.contents, error.pos[0]);
    problems.push({
      message: `YAML syntax error: ${error.message}`,
      ...position(error.pos[0]),
      ...located(path),
    });
  }
  for (const warning of doc.warnings) {
    const path = pathAt(doc.contents, warning.pos[0]);
    readable = false;
    problems.push({
      message: `unsupported YAML: ${warning.message}`,
      ...position(warning.pos[0]),
      ...located(path),
    });
  }
  visit(doc, {
    Map(_, map) {
      const seen = new Set<unknown>();
      for (const pair of map.items) {
        if (!isScalar(pair.key)) continue;
        if (seen.has(pair.key.value)) duplicateAt(pair.key.range?.[0] ?? 0);
        seen.add(pair.key.value);
      }
    },
    Pair(_, pair) {
      if (isPair(pair) && !isScalar(pair.key)) {
        readable = false;
        const at = (pair.key as Node | null)?.range?.[0] ?? 0;
        problems.push({ message: 'keys must be plain strings', ...position(at) });
      }
    },
  });

  let value: unknown;
  if (readable) {
    try {
      value = doc.toJS({ maxAliasCount: 100 });
    } catch (error) {
      readable = false;
      problems.push({
        message: `YAML could not be read: ${error instanceof Error ? error.message : String(error)}`,
        line: 1,
        column: 1,
      });
    }
  }

  return {
    value,
    readable,
    problems,
    locate(path) {
      let node: unknown = doc.contents;
      let at = (doc.contents as Node | null)?.range?.[0];
      for (const segment of path) {
        const child = childAt(node, segment);
        if (!child) break;
        node = child.node;
        at = child.at ?? at;
      }
      return at === undefined ? undefined : position(at);
    },
  };
}
