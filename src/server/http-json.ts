/**
 * JSON over node:http for the agent server: reading a request body (bounded, parsed,
 * typed errors for what a client got wrong), writing a JSON answer, and the HTTP status
 * of each typed error. A client's mistake is always a 4xx with `{ error: { name, code,
 * message, … } }`; only a fault of the server (or its store) is a 5xx.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  DefinitionConflictError,
  InvalidStateError,
  LeaseLostError,
  ModifiedDeciderError,
  NotFoundError,
  StaleDecisionError,
  StoreError,
  ValidationError,
  WeftError,
} from '../core/errors.js';

/** Error code of a body larger than the server accepts (HTTP 413). */
export const PAYLOAD_TOO_LARGE = 'PAYLOAD_TOO_LARGE';
/** Error code of a known path asked with another method (HTTP 405). */
export const METHOD_NOT_ALLOWED = 'METHOD_NOT_ALLOWED';
/** Error code of a body that is not JSON (HTTP 400). */
export const MALFORMED_JSON = 'MALFORMED_JSON';

/**
 * Reads and parses a JSON body. An empty body is `undefined`; a body over `maxBytes` is a
 * `ValidationError` (code {@link PAYLOAD_TOO_LARGE}); text that is not JSON is a
 * `ValidationError` (code {@link MALFORMED_JSON}).
 */
export async function readJsonBody(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  let tooLarge = false;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > maxBytes) tooLarge = true;
    else chunks.push(buffer);
  }
  if (tooLarge) {
    throw new ValidationError(`is larger than ${maxBytes} bytes`, 'request body', {
      code: PAYLOAD_TOO_LARGE,
    });
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new ValidationError(`is not JSON: ${detail}`, 'request body', {
      code: MALFORMED_JSON,
    });
  }
}

/** Writes `body` as JSON with `status`. */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body, (_, v) => (typeof v === 'bigint' ? v.toString() : v));
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
  });
  res.end(text);
}

/** The HTTP status for an error: 4xx for what the client got wrong, 5xx for the server. */
export function statusOf(error: unknown): number {
  if (error instanceof ValidationError) {
    if (error.code === PAYLOAD_TOO_LARGE) return 413;
    if (error.code === METHOD_NOT_ALLOWED) return 405;
    return 400;
  }
  if (error instanceof NotFoundError) return 404;
  if (
    error instanceof StaleDecisionError ||
    error instanceof InvalidStateError ||
    error instanceof LeaseLostError ||
    error instanceof DefinitionConflictError ||
    error instanceof ModifiedDeciderError
  ) {
    return 409;
  }
  if (error instanceof StoreError) return 503;
  return 500;
}

/** The JSON body for an error: a typed error's fields, or a generic internal error. */
export function errorBody(error: unknown): { error: Record<string, unknown> } {
  if (error instanceof WeftError && statusOf(error) < 500) return { error: error.toJSON() };
  if (error instanceof WeftError) {
    return { error: { name: error.name, code: error.code, message: error.message } };
  }
  return {
    error: {
      name: 'InternalError',
      code: 'INTERNAL',
      message: 'the server failed to handle this request; it is logged',
    },
  };
}
