/**
 * JSONata expressions: activity inputs, transition conditions and the job output. Each
 * expression sees `{ input: <job input>, <activity id>: { output, error, … } }`. Parsed
 * once per source text and cached; evaluated with a recursion-depth and a running-time
 * guard. No `eval`, no `new Function`: JSONata interprets its own syntax tree.
 *
 * `$now()` and `$millis()` read JSONata's own wall clock unless the caller passes `now`
 * (the engine passes its injected clock's time, so replays see the same instant);
 * `$random()` likewise uses `random` when given.
 */
import type Jsonata from 'jsonata';
import { ExpressionError } from '../core/errors.js';
import { jsonata } from './jsonata-module.js';

/** Any JSON value. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A parsed JSONata expression. */
export type CompiledExpression = Jsonata.Expression;

/** Deepest JSONata call stack an evaluation may reach before it fails. */
const STACK_LIMIT = 500;
/**
 * Longest an evaluation may run, in ms: JSONata's own guard, which compares wall-clock
 * readings between steps (no timer). It stops endless tail recursion, which the stack
 * limit cannot see.
 */
const TIME_LIMIT_MS = 5_000;
/** Most parsed expressions kept; the cache is cleared when it is full. */
const CACHE_LIMIT = 5_000;

/** How JSONata holds a built-in function in its environment. */
interface JsonataFunction {
  implementation?: (this: Jsonata.Focus, ...args: unknown[]) => unknown;
}

const cache = new Map<string, CompiledExpression>();

interface JsonataFailure {
  message?: unknown;
  code?: unknown;
  position?: unknown;
}

/** JSONata throws plain objects with `code`, `position` and `message`; read them safely. */
export function describeJsonataError(error: unknown): {
  message: string;
  code?: string;
  position?: number;
} {
  if (error === null || typeof error !== 'object') return { message: String(error) };
  const failure = error as JsonataFailure;
  const message = typeof failure.message === 'string' ? failure.message : String(error);
  return {
    message,
    code: typeof failure.code === 'string' ? failure.code : undefined,
    position: typeof failure.position === 'number' ? failure.position : undefined,
  };
}

/**
 * Parses an expression once (cached by its source text); throws {@link ExpressionError}
 * naming `where` on a syntax error.
 */
export function compileExpression(source: string, where?: string): CompiledExpression {
  const hit = cache.get(source);
  if (hit) return hit;
  let expression: CompiledExpression;
  try {
    expression = jsonata(source, { stack: STACK_LIMIT, timeout: TIME_LIMIT_MS });
  } catch (error) {
    const { message, code, position } = describeJsonataError(error);
    throw new ExpressionError(source, where, message, code, position, { cause: error });
  }
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(source, expression);
  return expression;
}

/** Options for {@link evaluateExpression}. */
export interface EvaluateOptions {
  /** Epoch milliseconds `$now()` and `$millis()` return (from the injected clock). */
  now?: number;
  /** What `$random()` returns (an injected random source). */
  random?: () => number;
}

/** Turns a JSONata result into plain JSON: sequences become arrays, `undefined` null. */
function toJson(value: unknown, source: string, where: string | undefined, depth = 0): Json {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    if (Number.isFinite(value)) return value;
    throw new ExpressionError(source, where, `result is not JSON: ${value}`);
  }
  if (depth > 1000) throw new ExpressionError(source, where, 'result is nested too deeply');
  if (Array.isArray(value)) return value.map((item) => toJson(item, source, where, depth + 1));
  if (typeof value === 'object' && !('_jsonata_lambda' in value)) {
    const out: { [key: string]: Json } = {};
    for (const [key, item] of Object.entries(value)) {
      if (item !== undefined) out[key] = toJson(item, source, where, depth + 1);
    }
    return out;
  }
  throw new ExpressionError(source, where, 'result is not JSON: a function');
}

/**
 * Evaluates an expression over `data` (`{ input, <activity id>: { output, error } }`).
 * An `undefined` result (nothing matched) is `null`. Throws {@link ExpressionError}
 * naming the expression and `where` when it fails to parse or to evaluate.
 */
export async function evaluateExpression(
  source: string,
  data: unknown,
  where?: string,
  options: EvaluateOptions = {},
): Promise<Json> {
  const expression = compileExpression(source, where);
  const bindings: Record<string, unknown> = {};
  const { now, random } = options;
  if (now !== undefined) {
    bindings.millis = () => now;
    // A JSONata native function (marked as such) is called with the evaluation focus as
    // `this`, which lets it format through JSONata's own $fromMillis.
    bindings.now = {
      _jsonata_function: true,
      implementation(this: Jsonata.Focus, picture?: string, timezone?: string) {
        const fromMillis = this.environment.lookup('fromMillis') as JsonataFunction | undefined;
        if ((picture === undefined && timezone === undefined) || !fromMillis?.implementation) {
          return new Date(now).toISOString();
        }
        return fromMillis.implementation.call(this, now, picture, timezone);
      },
    };
  }
  if (random) bindings.random = () => random();
  let result: unknown;
  try {
    result = await expression.evaluate(data, bindings);
  } catch (error) {
    const { message, code, position } = describeJsonataError(error);
    throw new ExpressionError(source, where, message, code, position, { cause: error });
  }
  return toJson(result, source, where);
}
