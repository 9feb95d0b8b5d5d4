/**
 * JSON helpers for code-first workflows: a canonical (key-sorted) serialization used
 * for hashing and comparing, a strict JSON-safety check for workflow properties and
 * outputs, and a deep copy. Everything the engine records goes through these, so what
 * is stored reads back exactly as it was written.
 */
import { canonicalJson } from '../core/canonical-json.js';
import { ValidationError } from '../core/errors.js';
import type { Json } from '../store/records.js';

/** A JSON object. */
export type JsonObject = { [key: string]: Json };

/** Serializes a JSON value with object keys sorted, so equal values give equal text. */
export function stableStringify(value: Json): string {
  return canonicalJson(value);
}

/** True when two JSON values are deeply equal (object key order ignored). */
export function jsonEqual(a: Json | undefined, b: Json | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined) return false;
  return stableStringify(a) === stableStringify(b);
}

/**
 * A deep copy of a JSON value (replay copies the same small values many times, so this
 * copies plain data directly rather than through `structuredClone`).
 */
export function cloneJson<T extends Json>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map((item) => cloneJson(item)) as T;
  const out: JsonObject = {};
  for (const key of Object.keys(value)) {
    const item = cloneJson((value as JsonObject)[key] as Json);
    // An own `__proto__` key (JSON.parse makes one) stays a key, as in the original.
    if (key === '__proto__') {
      Object.defineProperty(out, key, {
        value: item,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    } else {
      out[key] = item;
    }
  }
  return out as T;
}

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * Checks that `value` is plain JSON (null, booleans, finite numbers, strings, arrays and
 * plain objects of those) and returns it typed as {@link Json}. `undefined` inside an
 * object is dropped, as JSON would. Anything else (a Date, a Map, a class instance,
 * NaN, a function) throws {@link ValidationError} naming where it was found.
 */
export function toJson(value: unknown, where: string): Json {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    if (Number.isFinite(value)) return value;
    throw new ValidationError(`${value} is not a JSON number`, where);
  }
  if (Array.isArray(value)) return value.map((item, i) => toJson(item, `${where}[${i}]`));
  if (typeof value === 'object' && isPlainObject(value)) {
    const out: JsonObject = {};
    for (const [key, item] of Object.entries(value)) {
      if (item !== undefined) out[key] = toJson(item, `${where}.${key}`);
    }
    return out;
  }
  const kind =
    typeof value === 'object' ? (value.constructor?.name ?? 'object') : String(typeof value);
  throw new ValidationError(`a ${kind} is not JSON-safe; use plain data`, where);
}
