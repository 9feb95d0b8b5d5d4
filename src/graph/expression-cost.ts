/**
 * Which JSONata expressions are provably cheap: evaluated over data already in memory,
 * their time and memory grow at most with (size of the expression) × (size of the data),
 * whatever that data holds. The engine evaluates those inline, inside its transaction;
 * every other expression goes to the expression sandbox, outside any lock, under a hard
 * time and memory limit (engine/expression-sandbox.ts).
 *
 * Cheap, by the syntax tree: literals; paths of field names with filters and indexes;
 * `$` (the context); comparison, arithmetic, boolean, `in` and `&` operators; array and
 * object constructors; conditions and blocks; and calls to the built-in functions in
 * {@link CHEAP_FUNCTIONS}, each linear in its arguments, whose arguments are cheap.
 * Not cheap, so sandboxed: regular expressions (one native call can backtrack for
 * minutes), ranges (`[1..n]` allocates n items), every other function (`$pad`, `$sort`,
 * `$replace`, `$distinct`… can take time or memory far beyond their input), lambdas and
 * variables (recursion), `$$` and parent steps (a filter over every item that reads the
 * whole data again is quadratic), grouping (JSONata appends to each group by copying),
 * sorting, transforms, wildcards and descendants, and anything this module does not know.
 */
import { compileExpression } from './expressions.js';

/**
 * Built-in functions that are linear in their arguments, and whose result is no larger
 * than their arguments: a cheap expression may call them.
 */
export const CHEAP_FUNCTIONS: ReadonlySet<string> = new Set([
  'abs',
  'append',
  'average',
  'boolean',
  'ceil',
  'count',
  'exists',
  'floor',
  'keys',
  'length',
  'lookup',
  'lowercase',
  'max',
  'merge',
  'millis',
  'min',
  'not',
  'now',
  'number',
  'round',
  'string',
  'substring',
  'substringAfter',
  'substringBefore',
  'sum',
  'trim',
  'type',
  'uppercase',
]);

const CHEAP_OPERATORS: ReadonlySet<string> = new Set([
  '=',
  '!=',
  '<',
  '<=',
  '>',
  '>=',
  '+',
  '-',
  '*',
  '/',
  '%',
  'and',
  'or',
  'in',
  '&',
]);

/** The keys a node of a cheap expression may carry; any other (a binding, a group…) is not. */
const KNOWN_KEYS: ReadonlySet<string> = new Set([
  'type',
  'value',
  'position',
  'steps',
  'stages',
  'predicate',
  'lhs',
  'rhs',
  'expression',
  'expressions',
  'arguments',
  'procedure',
  'condition',
  'then',
  'else',
  'keepArray',
  'consarray',
  'keepSingletonArray',
]);

interface AstNode {
  type?: unknown;
  value?: unknown;
  [key: string]: unknown;
}

function isNode(value: unknown): value is AstNode {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function allCheap(list: unknown): boolean {
  return Array.isArray(list) && list.every((item) => isCheapNode(item));
}

/** Filters and predicates: `[…]` stages, each an expression over one item. */
function cheapStages(list: unknown): boolean {
  if (list === undefined) return true;
  return (
    Array.isArray(list) &&
    list.every((stage) => isNode(stage) && stage.type === 'filter' && isCheapNode(stage.expr))
  );
}

function isCheapNode(node: unknown): boolean {
  if (!isNode(node)) return false;
  for (const [key, value] of Object.entries(node)) {
    if (value !== undefined && !KNOWN_KEYS.has(key)) return false;
  }
  if (!cheapStages(node.stages) || !cheapStages(node.predicate)) return false;
  switch (node.type) {
    case 'string':
    case 'number':
    case 'value':
    case 'name':
      return true;
    case 'variable':
      // `$` alone is the context; `$$` and named variables are not cheap.
      return node.value === '';
    case 'path':
      return allCheap(node.steps);
    case 'binary':
      return (
        typeof node.value === 'string' &&
        CHEAP_OPERATORS.has(node.value) &&
        isCheapNode(node.lhs) &&
        isCheapNode(node.rhs)
      );
    case 'unary':
      if (node.value === '-') return isCheapNode(node.expression);
      if (node.value === '[') return allCheap(node.expressions);
      if (node.value === '{') {
        return Array.isArray(node.lhs) && node.lhs.every((pair) => allCheap(pair));
      }
      return false;
    case 'condition':
      return (
        isCheapNode(node.condition) &&
        isCheapNode(node.then) &&
        (node.else === undefined || isCheapNode(node.else))
      );
    case 'block':
      return allCheap(node.expressions);
    case 'function': {
      const procedure = node.procedure;
      return (
        node.value === '(' &&
        isNode(procedure) &&
        procedure.type === 'variable' &&
        typeof procedure.value === 'string' &&
        CHEAP_FUNCTIONS.has(procedure.value) &&
        Object.keys(procedure).every(
          (key) => key === 'type' || key === 'value' || key === 'position',
        ) &&
        allCheap(node.arguments)
      );
    }
    default:
      return false;
  }
}

const verdicts = new Map<string, boolean>();
const VERDICT_LIMIT = 5_000;

/**
 * True when `source` is provably cheap (see the module's notes), so that it may be
 * evaluated inline, inside a transaction. An expression that does not parse is not cheap:
 * its error comes from evaluating it.
 */
export function isCheapExpression(source: string): boolean {
  const known = verdicts.get(source);
  if (known !== undefined) return known;
  let verdict: boolean;
  try {
    verdict = isCheapNode(compileExpression(source).ast());
  } catch {
    verdict = false;
  }
  if (verdicts.size >= VERDICT_LIMIT) verdicts.clear();
  verdicts.set(source, verdict);
  return verdict;
}
