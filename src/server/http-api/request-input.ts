/**
 * Reading what a request carries, with typed errors for anything wrong: ids (a job's, a
 * dead letter's) of sane length without control characters, query numbers and times,
 * and JSON bodies under a size limit that must be objects.
 */
import type { Context } from 'hono';
import { ValidationError } from '../../core/errors.js';
import type { Json } from '../../store/records.js';

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

/**
 * The request's JSON body as an object (an empty body is `{}`): a BODY_TOO_LARGE error
 * past {@link MAX_BODY_BYTES}, BAD_JSON when it does not parse or is not an object.
 */
export async function jsonBody(c: Context): Promise<Record<string, Json>> {
  const declared = Number(c.req.header('content-length') ?? '0');
  if (declared > MAX_BODY_BYTES) throw tooLarge();
  const raw = c.req.raw.body;
  if (!raw) return {};
  const reader = raw.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (text === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ValidationError(`the body is not JSON (${(error as Error).message})`, 'body', {
      code: 'BAD_JSON',
    });
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ValidationError('the body must be a JSON object', 'body', { code: 'BAD_JSON' });
  }
  return value as Record<string, Json>;
}

function tooLarge(): ValidationError {
  return new ValidationError(`the body is larger than ${MAX_BODY_BYTES} bytes`, 'body', {
    code: 'BODY_TOO_LARGE',
  });
}

/** A string field of a body, required unless `optional`. */
export function bodyString(body: Record<string, Json>, name: string): string {
  const value = body[name];
  if (typeof value !== 'string' || value === '' || value.length > 200) {
    throw new ValidationError('must be a non-empty string of at most 200 characters', name);
  }
  return value;
}
