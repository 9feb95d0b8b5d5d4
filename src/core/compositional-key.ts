/**
 * Compositional keys (seed 000): the collation keys of a job and of the child jobs it
 * awaited, written as one string of digits. A child's key, trailing zeros trimmed, sits right
 * after the digit of the activity that invoked it, between a left bookend `1` and a right
 * bookend `2`; children nest to any depth. A flat key never holds a 1 or a 2, so the
 * bookends parse back unambiguously.
 *
 * Example (seed 000): Flow A `999969000000000`, whose activity at position 4 invoked Flow B
 * `466366000000000`, composes to `99996146636629`.
 *
 * Parsing returns every key trimmed (the width of a job is not in the string); use
 * {@link restoreCollationKey} with the job's width to get the full key back.
 */
import { ValidationError } from './errors.js';

/** One job in a compositional key. */
export interface CompositionalNode {
  /** The job's collation key as decimal digits (trailing zeros may be present; they are trimmed). */
  key: string;
  /** The child jobs it invoked, in key order. */
  children: CompositionalChild[];
}

/** A child job and where it hangs in its parent. */
export interface CompositionalChild {
  /** The 0-based digit position of the invoking activity in the parent's key. */
  position: number;
  node: CompositionalNode;
}

const LEFT = '1';
const RIGHT = '2';

/** A key as decimal digits with trailing zeros removed. */
export function trimCollationKey(key: bigint | string): string {
  const text = typeof key === 'bigint' ? key.toString() : key;
  if (!/^[0-9]*$/.test(text)) {
    throw new ValidationError(`collation key ${JSON.stringify(text)} is not decimal digits`);
  }
  return text.replace(/0+$/, '');
}

/** Pads a trimmed key back to `width` digits (default 15) and returns it as a number. */
export function restoreCollationKey(trimmed: string, width = 15): bigint {
  if (!/^[0-9]+$/.test(trimmed) || trimmed.length > width) {
    throw new ValidationError(
      `trimmed key ${JSON.stringify(trimmed)} is not 1 to ${width} decimal digits`,
    );
  }
  return BigInt(trimmed.padEnd(width, '0'));
}

/** Builds a node from a full or trimmed key. */
export function compositionalNode(
  key: bigint | string,
  children: CompositionalChild[] = [],
): CompositionalNode {
  return { key: trimCollationKey(key), children };
}

/**
 * Writes a tree of jobs as one compositional key. Throws {@link ValidationError} when a key
 * is empty, holds a bookend digit (1 or 2), or a child's position is outside its parent's
 * trimmed key.
 */
export function composeKey(node: CompositionalNode): string {
  const own = trimCollationKey(node.key);
  if (own.length === 0) throw new ValidationError('a job key in a compositional key is empty');
  if (own.includes(LEFT) || own.includes(RIGHT)) {
    throw new ValidationError(`job key ${own} holds a bookend digit (1 or 2)`);
  }
  const after = new Map<number, string[]>();
  for (const child of node.children) {
    if (!Number.isInteger(child.position) || child.position < 0 || child.position >= own.length) {
      throw new ValidationError(`child position ${child.position} is outside job key ${own}`);
    }
    const list = after.get(child.position) ?? [];
    list.push(`${LEFT}${composeKey(child.node)}${RIGHT}`);
    after.set(child.position, list);
  }
  let out = '';
  for (let i = 0; i < own.length; i++) out += own[i] + (after.get(i) ?? []).join('');
  return out;
}

/**
 * Reads a compositional key back into its tree of jobs, keys trimmed. Throws
 * {@link ValidationError} naming the character offset on a non-digit, an unbalanced
 * bookend, a child before any digit of its parent, or an empty job.
 */
export function parseCompositionalKey(text: string): CompositionalNode {
  let index = 0;
  const fail = (message: string): never => {
    throw new ValidationError(`compositional key ${text}: ${message}`, `offset ${index}`);
  };
  const parseNode = (): CompositionalNode => {
    let key = '';
    const children: CompositionalChild[] = [];
    while (index < text.length) {
      const ch = text[index] as string;
      if (ch === RIGHT) break;
      if (ch === LEFT) {
        if (key.length === 0) fail('a child job comes before any digit of its parent');
        index++;
        const node = parseNode();
        if (text[index] !== RIGHT) fail('a child job is not closed by 2');
        index++;
        children.push({ position: key.length - 1, node });
      } else if (ch >= '0' && ch <= '9') {
        key += ch;
        index++;
      } else {
        fail(`${JSON.stringify(ch)} is not a digit`);
      }
    }
    const trimmed = key.replace(/0+$/, '');
    if (trimmed.length === 0) fail('a job has no non-zero digits');
    if (children.some((child) => child.position >= trimmed.length)) {
      fail('a child job follows a trailing zero');
    }
    return { key: trimmed, children };
  };
  const root = parseNode();
  if (index < text.length) fail('a 2 closes no child job');
  return root;
}
