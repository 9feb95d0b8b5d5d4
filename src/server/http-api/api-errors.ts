/**
 * How the HTTP API answers an error: a typed error's status (404 for NOT_FOUND, 401 for
 * UNAUTHORIZED, 409 for a conflict with the job's state, 413 for a body over the limit,
 * 400 for any other invalid input) and its JSON form, `{ "error": { name, code, message } }`.
 * Anything else is a 500 that names no internals beyond its message.
 */
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { toErrorRecord, WeftError } from '../../core/errors.js';

/** The HTTP status of a typed error's code. */
export function statusOfCode(code: string): ContentfulStatusCode {
  switch (code) {
    case 'NOT_FOUND':
      return 404;
    case 'UNAUTHORIZED':
      return 401;
    case 'FORBIDDEN':
      return 403;
    case 'UNSUPPORTED_MEDIA_TYPE':
      return 415;
    case 'BODY_TOO_LARGE':
      return 413;
    case 'CONFLICT':
    case 'INVALID_STATE':
    case 'DEFINITION_CONFLICT':
      return 409;
    case 'NO_SUCH_HOOK':
      return 422;
    default:
      return 400;
  }
}

/** The API's answer to an error thrown by a route. */
export function errorResponse(error: unknown, c: Context): Response {
  if (error instanceof WeftError) {
    return c.json({ error: error.toJSON() }, statusOfCode(error.code));
  }
  const record = toErrorRecord(error);
  return c.json({ error: { name: record.name, code: 'INTERNAL', message: record.message } }, 500);
}
