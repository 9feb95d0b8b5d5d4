/**
 * How both HTTP servers (the dashboard's API and `weft serve`) answer an error — one
 * table, one body:
 *
 * - a client's mistake is a 4xx with the typed error's JSON form, `{ "error": { name,
 *   code, message, … } }`: 400 invalid input, 401 no or a wrong token, 403 another origin
 *   or host, 404 not found, 405 a known path with another method, 409 a conflict with
 *   the state of what it acts on, 413 a body over the limit, 415 not declared JSON, 422
 *   a signal the job does not listen for;
 * - a store that is busy, unreachable or closing is a 503 with `Retry-After`: nothing
 *   changed, the same request may succeed later;
 * - a change the Redis store applied but too few replicas confirmed (`?wait=N`,
 *   `STORE_NOT_REPLICATED`) is a 503 without `Retry-After`: it was made, and a retry
 *   may make it twice;
 * - anything else is a 500 that names no internals. Every 5xx is logged with a request
 *   id, which the answer carries (`error.requestId` and the `X-Request-Id` header), so an
 *   operator finds the log line a user reports.
 */
import { randomBytes } from 'node:crypto';
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import {
  ConflictError,
  DefinitionConflictError,
  ForbiddenOriginError,
  InvalidStateError,
  LeaseLostError,
  ModifiedDeciderError,
  NotFoundError,
  StaleDecisionError,
  StoreError,
  toErrorRecord,
  UnauthorizedError,
  UnsupportedMediaTypeError,
  ValidationError,
  WeftError,
} from '../../core/errors.js';
import type { ErrorRecord } from '../../store/records.js';
import { logWarning, type WorkerLogger } from '../../worker/worker-options.js';

/** Error code of a body larger than the server accepts (HTTP 413). */
export const BODY_TOO_LARGE = 'BODY_TOO_LARGE';
/** Error code of a known path asked with another method (HTTP 405). */
export const METHOD_NOT_ALLOWED = 'METHOD_NOT_ALLOWED';

/** Store error codes that mean "try again later" (503), not a fault of the server. */
const TRANSIENT_STORE_CODES = new Set([
  'STORE_BUSY',
  'STORE_CONFLICT',
  'STORE_UNREACHABLE',
  'STORE_CLOSED',
]);

/** A change the store's master applied that too few of its replicas confirmed. */
const NOT_REPLICATED = 'STORE_NOT_REPLICATED';

/** Seconds a 503 asks the client to wait before trying again. */
export const RETRY_AFTER_SECONDS = 1;

/** The HTTP status of an error. */
export function statusOf(error: unknown): ContentfulStatusCode {
  if (error instanceof WeftError && error.code === 'NO_SUCH_HOOK') return 422;
  if (error instanceof ValidationError) {
    if (error.code === BODY_TOO_LARGE) return 413;
    if (error.code === METHOD_NOT_ALLOWED) return 405;
    return 400;
  }
  if (error instanceof NotFoundError) return 404;
  if (error instanceof UnauthorizedError) return 401;
  if (error instanceof ForbiddenOriginError) return 403;
  if (error instanceof UnsupportedMediaTypeError) return 415;
  if (
    error instanceof ConflictError ||
    error instanceof StaleDecisionError ||
    error instanceof InvalidStateError ||
    error instanceof LeaseLostError ||
    error instanceof DefinitionConflictError ||
    error instanceof ModifiedDeciderError
  ) {
    return 409;
  }
  if (error instanceof StoreError && TRANSIENT_STORE_CODES.has(error.code)) return 503;
  if (error instanceof StoreError && error.code === NOT_REPLICATED) return 503;
  return 500;
}

/** A new request id: 16 hex digits. */
export function newRequestId(): string {
  return randomBytes(8).toString('hex');
}

/** What a server answers for an error. */
export interface ErrorAnswer {
  status: ContentfulStatusCode;
  body: { error: Record<string, unknown> };
  headers: Record<string, string>;
}

/** Which request failed, for the log line of a 5xx. */
export interface FailedRequest {
  requestId: string;
  method: string;
  /** The path, without the query. */
  path: string;
  logger?: WorkerLogger | undefined;
}

/**
 * The answer to an error; a 5xx is logged on `request.logger` (a 500 as an error with
 * its stack, a 503 as a warning) under the request id the answer carries.
 */
export function errorAnswer(error: unknown, request: FailedRequest): ErrorAnswer {
  const status = statusOf(error);
  if (status < 500 && error instanceof WeftError) {
    return { status, body: { error: error.toJSON() }, headers: {} };
  }
  const { requestId, logger } = request;
  const record = toRecord(error);
  const fields = { requestId, method: request.method, path: request.path, status };
  const headers: Record<string, string> = { 'x-request-id': requestId };
  if (status === 503) {
    if (logger) logWarning(logger, `${request.method} ${request.path}: ${status}`, record, fields);
    const code = (error as StoreError).code;
    if (code === NOT_REPLICATED) {
      const message =
        'the change was made on the store’s master, but fewer of its replicas than the store URL’s ?wait asks for confirmed it: it stands unless that master fails first; a retry may make it twice';
      return { status, body: { error: { name: 'StoreError', code, message, requestId } }, headers };
    }
    headers['retry-after'] = String(RETRY_AFTER_SECONDS);
    const message = `the store is busy or unreachable (${code}); nothing changed, retry in a moment`;
    return { status, body: { error: { name: 'StoreError', code, message, requestId } }, headers };
  }
  logger?.error(`${request.method} ${request.path}: ${status}`, record, fields);
  const message = `the server failed to handle this request; it is logged under request id ${requestId}`;
  return {
    status,
    body: { error: { name: 'InternalError', code: 'INTERNAL', message, requestId } },
    headers,
  };
}

/** The error as a log line's record, with its stack when it has one. */
function toRecord(error: unknown): ErrorRecord {
  const stack = error instanceof Error ? error.stack : undefined;
  return { ...toErrorRecord(error), ...(stack ? { stack } : {}) };
}

/** The Hono environment of the dashboard's API: each request's id. */
export interface ApiEnv {
  Variables: { requestId: string };
}

/** The dashboard API's answer to an error thrown by a route (Hono). */
export function errorResponse(
  error: unknown,
  c: Context<ApiEnv>,
  logger?: WorkerLogger | undefined,
): Response {
  const answer = errorAnswer(error, {
    requestId: c.get('requestId') ?? newRequestId(),
    method: c.req.method,
    path: c.req.path,
    logger,
  });
  return c.json(answer.body, answer.status, answer.headers);
}
