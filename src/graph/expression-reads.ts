/**
 * What an expression can read of the data it is evaluated over (`{ input, <activity id>:
 * … }`), soundly: the top-level names it may reach, or `all` when it may reach the whole
 * of it. The engine evaluates a sandboxed expression over just those names — less to send
 * to the sandbox, and a result that stays valid when the rest of the job's data changes
 * (another thread of the same spread writing its records, say).
 *
 * Unlike expression-roots.ts (which names roots for the compiler's warnings), this errs on
 * the side of `all`: `$$` anywhere; `$` where it is the whole data; `%` (a parent can be
 * the whole data); a wildcard or descendant step at the top; a call at the top to a
 * built-in that takes the context as an argument it was not given (`$keys()`,
 * `$lookup("input")`); `$eval`, anywhere; a function with a signature of its own that may do the same; and
 * any node this module does not know. A function body defined at the top reads the top
 * (JSONata evaluates it against the data it was defined over).
 */
import { compileExpression } from './expressions.js';

/** What an expression may read: some top-level names, or everything. */
export type ExpressionReads = ReadonlySet<string> | 'all';

/**
 * Built-ins whose first parameter defaults to the context and accepts an object, by how
 * many arguments a call must give for the context not to be used. (The others that take
 * the context want a string or a number, which the data never is: over it they fail,
 * the same way whatever it holds.)
 */
const CONTEXT_ARGUMENTS: ReadonlyMap<string, number> = new Map([
  ['string', 1],
  ['boolean', 1],
  ['not', 1],
  ['keys', 1],
  ['spread', 1],
  ['lookup', 2],
  ['sift', 2],
  ['each', 2],
]);

/** Thrown inside the walk when the answer is `all`. */
class ReadsAll {}

type AstNode = { type?: unknown; value?: unknown; [key: string]: unknown };

function isNode(value: unknown): value is AstNode {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function walk(node: unknown, rooted: boolean, names: Set<string>): void {
  if (Array.isArray(node)) {
    for (const item of node) walk(item, rooted, names);
    return;
  }
  if (!isNode(node)) return;
  if ('ancestor' in node || 'slot' in node) throw new ReadsAll();
  // A step's filters, groups and sort terms read what the step gave, not the top.
  walk(node.stages, false, names);
  walk(node.predicate, false, names);
  if (isNode(node.group)) walk(node.group.lhs, false, names);
  switch (node.type) {
    case 'string':
    case 'number':
    case 'value':
    case 'regex':
    case 'operator':
      return;
    case 'filter':
      walk(node.expr, false, names);
      return;
    case 'name':
      if (rooted && typeof node.value === 'string') names.add(node.value);
      return;
    case 'variable':
      if (node.value === '$' || node.value === 'eval' || (node.value === '' && rooted)) {
        throw new ReadsAll();
      }
      return;
    case 'wildcard':
    case 'descendant':
      if (rooted) throw new ReadsAll();
      return;
    case 'path': {
      const steps = Array.isArray(node.steps) ? node.steps : [];
      walk(steps[0], rooted, names);
      walk(steps.slice(1), false, names);
      return;
    }
    case 'binary':
    case 'bind':
      walk(node.lhs, rooted, names);
      walk(node.rhs, rooted, names);
      return;
    case 'unary':
      walk(node.expression, rooted, names);
      walk(node.expressions, rooted, names);
      walk(node.lhs, rooted, names);
      return;
    case 'condition':
      walk(node.condition, rooted, names);
      walk(node.then, rooted, names);
      walk(node.else, rooted, names);
      return;
    case 'block':
      walk(node.expressions, rooted, names);
      return;
    case 'lambda': {
      const signature = (node.signature as { definition?: unknown } | undefined)?.definition;
      if (typeof signature === 'string' && signature.includes('-')) throw new ReadsAll();
      walk(node.body, rooted, names);
      return;
    }
    case 'apply':
      // `x ~> $f(a)` gives `x` as $f's context: the call reads no context of its own.
      walk(node.lhs, rooted, names);
      if (isNode(node.rhs) && (node.rhs.type === 'function' || node.rhs.type === 'partial')) {
        call(node.rhs, rooted, names, true);
      } else walk(node.rhs, rooted, names);
      return;
    case 'function':
    case 'partial':
      call(node, rooted, names, false);
      return;
    case 'transform':
      walk(node.pattern, false, names);
      walk(node.update, false, names);
      walk(node.delete, false, names);
      return;
    case 'sort':
      if (rooted) throw new ReadsAll();
      if (Array.isArray(node.terms)) {
        for (const term of node.terms) walk(isNode(term) ? term.expression : term, false, names);
      }
      return;
    default:
      throw new ReadsAll();
  }
}

function call(node: AstNode, rooted: boolean, names: Set<string>, contextGiven: boolean): void {
  const procedure = node.procedure;
  const args = Array.isArray(node.arguments) ? node.arguments : [];
  if (isNode(procedure) && procedure.type === 'variable' && typeof procedure.value === 'string') {
    // `$eval` reads names known only when it runs, from its context or through `$$`.
    if (procedure.value === 'eval') throw new ReadsAll();
    const needed = CONTEXT_ARGUMENTS.get(procedure.value);
    if (rooted && !contextGiven && needed !== undefined && args.length < needed) {
      throw new ReadsAll();
    }
  } else walk(procedure, rooted, names);
  walk(args, rooted, names);
}

const cache = new Map<string, ExpressionReads>();
const CACHE_LIMIT = 5_000;

/** What `source` may read of the data (see the module's notes); `all` when it does not parse. */
export function expressionReads(source: string): ExpressionReads {
  const known = cache.get(source);
  if (known !== undefined) return known;
  let reads: ExpressionReads;
  try {
    const names = new Set<string>();
    walk(compileExpression(source).ast(), true, names);
    reads = names;
  } catch {
    reads = 'all';
  }
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(source, reads);
  return reads;
}

/** The part of `data` an expression that reads `reads` can see. */
export function readPart(data: Record<string, unknown>, reads: ExpressionReads): unknown {
  if (reads === 'all') return data;
  const part: Record<string, unknown> = {};
  for (const name of reads) if (Object.hasOwn(data, name)) part[name] = data[name];
  return part;
}
