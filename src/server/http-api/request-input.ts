/**
 * Reading what a request carries, with typed errors for anything wrong: ids (a job's, a
 * dead letter's) of sane length without control characters, query numbers and times,
 * and bodies under a size limit (both servers read theirs with {@link readBodyText}),
 * JSON ones parsed with a depth limit and errors that never quote them.
 */
import type { Context } from 'hono';
import { ValidationError } from '../../core/errors.js';
import { BAD_JSON, parseJsonText } from '../../core/json-text.js';
import type { Json } from '../../store/records.js';
import { BODY_TOO_LARGE } from './api-errors.js';

/** The largest request body the API reads (64 KiB). */
export const MAX_BODY_BYTES = 64 * 1024;

/** An id from the path: 1–200 characters, none of them control characters. */
export function pathId(c: Context, name = 'id'): string {
  const id = c.req.param(name) ?? '';
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing them is the point
  if (id.length === 0 || id.length > 200 || /[\u0000-\u001f\u007f]/.test(id)) {
    throw new ValidationError(`not a valid ${name}: ${JSON.stringify(id.slice(0, 40))}`, name, {
      code: 'BAD_ID',
    });
  }
  return id;
}

/** A whole number from the query string in [min, max], or `fallback` when absent. */
export function queryNumber(
  c: Context,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const text = c.req.query(name);
  if (text === undefined || text === '') return fallback;
  const n = Number(text);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new ValidationError(`must be a whole number from ${min} to ${max}`, name);
  }
  return n;
}

/** A time from the query string (ISO 8601 or epoch ms), or undefined when absent. */
export function queryTime(c: Context, name: string): number | undefined {
  const text = c.req.query(name);
  if (text === undefined || text === '') return undefined;
  const n = /^\d+$/.test(text) ? Number(text) : Date.parse(text);
  if (!Number.isFinite(n)) throw new ValidationError('must be an ISO 8601 time or epoch ms', name);
  return n;
}

/** The error of a body over `maxBytes` (HTTP 413). */
function tooLarge(maxBytes: number): ValidationError {
  return new ValidationError(`is larger than ${maxBytes} bytes`, 'body', {
    code: BODY_TOO_LARGE,
  });
}

/**
 * Reads a request body as text, at most `maxBytes`: a declared `Content-Length` over the
 * limit is refused before a byte is read, and a body that passes it (chunked, or longer
 * than declared) as soon as it does — BODY_TOO_LARGE either way, the rest left unread.
 * `chunks` must stop the body's reading when the loop leaves it early.
 */
export async function readBodyText(
  chunks: AsyncIterable<Uint8Array>,
  declaredLength: string | undefined,
  maxBytes: number,
): Promise<string> {
  if (declaredLength !== undefined && Number(declaredLength) > maxBytes) throw tooLarge(maxBytes);
  const parts: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of chunks) {
    size += chunk.byteLength;
    if (size > maxBytes) throw tooLarge(maxBytes);
    parts.push(chunk);
  }
  return Buffer.concat(parts).toString('utf8');
}

/**
 * The request's JSON body as an object (an empty body is `{}`): BODY_TOO_LARGE past
 * {@link MAX_BODY_BYTES}, BAD_JSON when it does not parse or is not an object,
 * JSON_TOO_DEEP when it nests past the limit (core/json-text.ts).
 */
export async function jsonBody(c: Context): Promise<Record<string, Json>> {
  const raw = c.req.raw.body;
  const declared = c.req.header('content-length');
  if (!raw) return {};
  const text = (await readBodyText(raw, declared, MAX_BODY_BYTES)).trim();
  if (text === '') return {};
  const value = parseJsonText(text, 'body');
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ValidationError('must be a JSON object', 'body', { code: BAD_JSON });
  }
  return value as Record<string, Json>;
}

/** A string field of a body, required unless `optional`. */
export function bodyString(body: Record<string, Json>, name: string): string {
  const value = body[name];
  if (typeof value !== 'string' || value === '' || value.length > 200) {
    throw new ValidationError('must be a non-empty string of at most 200 characters', name);
  }
  return value;
}
