/**
 * JSON over node:http, for `weft serve` (and the one node-level rule the dashboard
 * shares): reading a request body with the same bounds as the dashboard's API
 * (http-api/request-input.ts, core/json-text.ts), writing a JSON answer with the headers
 * every answer of both servers carries, and letting go of a body left unread without
 * reading it to its end.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseJsonText } from '../core/json-text.js';
import { readBodyText } from './http-api/request-input.js';

/**
 * Headers on every answer of both servers: nothing is cached, sniffed as another type,
 * framed, or given a referrer.
 */
export const COMMON_HEADERS: Readonly<Record<string, string>> = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
};

/** The `Content-Security-Policy` of an answer that is only data (JSON, text). */
export const DATA_CSP = "default-src 'none'; frame-ancestors 'none'";

/**
 * Reads and parses a JSON body: an empty body is `undefined`; over `maxBytes` it is a
 * BODY_TOO_LARGE `ValidationError` (from `Content-Length`, or as soon as it passes);
 * text that is not JSON is BAD_JSON, nesting too deep JSON_TOO_DEEP.
 */
export async function readJsonBody(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  const chunks = req.iterator({ destroyOnReturn: false }) as AsyncIterable<Uint8Array>;
  const text = await readBodyText(chunks, req.headers['content-length'], maxBytes);
  if (text.trim() === '') return undefined;
  return parseJsonText(text, 'body');
}

/** Writes `body` as JSON with `status` and `headers` (beside {@link COMMON_HEADERS}). */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body, (_, v) => (typeof v === 'bigint' ? v.toString() : v));
  res.writeHead(status, {
    ...COMMON_HEADERS,
    'content-security-policy': DATA_CSP,
    ...headers,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

/** How much of a body left unread is read and thrown away before its connection is closed. */
const LINGER_BYTES = 1024 * 1024;
/** How long a body left unread is read and thrown away before its connection is closed. */
const LINGER_MS = 1000;

/**
 * Called once the answer to `req` is sent: a body still arriving (one refused before it
 * was read, or past the limit) is not read to its end. The server throws away at most
 * {@link LINGER_BYTES} more, for at most {@link LINGER_MS} — time for the client to read
 * the answer before the connection closes — and then closes the connection.
 */
export function letGoOfBody(req: IncomingMessage): void {
  if (req.complete || req.destroyed) return;
  const socket = req.socket;
  let discarded = 0;
  const close = () => {
    clearTimeout(timer);
    req.off('data', count);
    socket.destroy();
  };
  const count = (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > LINGER_BYTES) close();
  };
  const timer = setTimeout(close, LINGER_MS);
  timer.unref();
  req.on('data', count);
  req.once('end', () => {
    clearTimeout(timer);
    req.off('data', count);
  });
  req.resume();
}
