/**
 * The names an expression reads from the top of the data it sees (`{ input, <activity
 * id>: … }`): the first step of each path evaluated against that data, and any step read
 * through `$` there or `$$` anywhere. Names inside a path's later steps, filters, sorts,
 * groups and function bodies are relative to something else and are not roots.
 */
import type jsonata from 'jsonata';

/** A name read from the top of the expression data, and where it is written. */
export interface ExpressionRoot {
  name: string;
  /** JSONata's position: the character just after the name. */
  position?: number;
}

/** A node of JSONata's syntax tree, read loosely (its typings omit `path`). */
type Node = Record<string, unknown>;

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The root names of a parsed expression (`jsonata(source).ast()`), in source order. */
export function expressionRoots(ast: jsonata.ExprNode | unknown): ExpressionRoot[] {
  const roots: ExpressionRoot[] = [];
  const name = (step: unknown) => {
    if (isNode(step) && step.type === 'name' && typeof step.value === 'string') {
      roots.push({
        name: step.value,
        ...(typeof step.position === 'number' && { position: step.position }),
      });
    }
  };
  // `rooted`: the node is evaluated against the top of the data.
  const visit = (node: unknown, rooted: boolean): void => {
    if (Array.isArray(node)) {
      for (const item of node) visit(item, rooted);
      return;
    }
    if (!isNode(node)) return;
    if (node.type === 'path' && Array.isArray(node.steps)) {
      const [first, second, ...rest] = node.steps as unknown[];
      const variable = isNode(first) && first.type === 'variable' ? first.value : undefined;
      if (rooted && isNode(first) && first.type === 'name') {
        name(first);
        visit(stepParts(first), false);
      } else if ((variable === '' && rooted) || variable === '$') {
        // `$.x` at the top, or `$$.x` anywhere: x is read from the top of the data.
        name(second);
        visit(stepParts(second), false);
        visit(rest, false);
        visit(pathParts(node), false);
        return;
      } else {
        visit(first, rooted);
      }
      visit(second, false);
      visit(rest, false);
      visit(pathParts(node), false);
      return;
    }
    if (node.type === 'name') {
      if (rooted) name(node);
      visit(stepParts(node), false);
      return;
    }
    // A function body runs against whatever it is applied to.
    if (node.type === 'lambda') {
      visit(node.body, false);
      return;
    }
    // Everything else (operators, constructors, conditions, calls, blocks, bindings)
    // evaluates its parts against the same data it sees itself.
    for (const [key, value] of Object.entries(node)) {
      if (key === 'procedure') continue;
      visit(value, rooted && !RELATIVE_PARTS.has(key));
    }
  };
  visit(ast, true);
  return roots;
}

/** Parts of a step or a path evaluated against the step's own result. */
const RELATIVE_PARTS = new Set(['stages', 'predicate', 'group', 'terms', 'focus', 'index']);

function stepParts(step: unknown): unknown[] {
  if (!isNode(step)) return [];
  return [step.stages, step.predicate, step.group];
}

function pathParts(path: Node): unknown[] {
  return [path.group, path.predicate];
}
