/**
 * What keeps other web sites out of a server on this machine — the dashboard's API and
 * `weft serve` alike. Without a token a server trusts whoever can reach its loopback
 * port, so it makes sure the caller is not a page elsewhere that the user's browser
 * happens to have open:
 *
 * - a request that acts must say `Content-Type: application/json` (415 otherwise): a page
 *   on another origin cannot send that without a CORS preflight, which neither server
 *   ever grants, so it cannot trigger an action (cross-site request forgery);
 * - a request with an `Origin` header from another host, or an opaque one, is refused (403);
 * - without a token, the `Host` header must name a loopback host (403 otherwise), so a
 *   domain re-pointed at 127.0.0.1 (DNS rebinding) cannot reach the server either.
 */
import type { MiddlewareHandler } from 'hono';
import { ForbiddenOriginError, UnsupportedMediaTypeError } from '../../core/errors.js';

/** Whether a host name or address (as `--host` takes it, or a `Host` header's name) is this machine only. */
export function isLoopback(host: string): boolean {
  const name = host.trim().toLowerCase();
  return (
    name === 'localhost' ||
    name === '::1' ||
    name === '[::1]' ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name)
  );
}

/** The host name of a `Host` header or an origin's host (`name:port`, `[v6]:port`). */
function hostName(host: string): string {
  const lower = host.trim().toLowerCase();
  if (lower.startsWith('[')) return lower.slice(0, lower.indexOf(']') + 1);
  return lower.split(':')[0] as string;
}

/** The headers the checks read (absent: undefined). */
export interface OriginHeaders {
  host: string | undefined;
  origin: string | undefined;
}

/**
 * Refuses (ForbiddenOriginError) a foreign or opaque `Origin`, and without a token
 * (`tokenSet` false) a `Host` that is missing or not loopback.
 */
export function checkOrigin(headers: OriginHeaders, tokenSet: boolean): void {
  const host = headers.host ?? '';
  if (!tokenSet && !isLoopback(hostName(host))) {
    throw new ForbiddenOriginError(
      `host ${JSON.stringify(host.slice(0, 100))} is not this machine; a server without a token answers only to localhost`,
    );
  }
  const { origin } = headers;
  if (origin === undefined) return;
  if (origin === 'null') {
    throw new ForbiddenOriginError('requests from an opaque origin are not allowed');
  }
  let originHost = '';
  try {
    originHost = new URL(origin).host;
  } catch {
    originHost = '';
  }
  if (originHost === '' || originHost.toLowerCase() !== host.trim().toLowerCase()) {
    throw new ForbiddenOriginError(`requests from ${origin.slice(0, 100)} are not allowed`);
  }
}

/** Refuses (UnsupportedMediaTypeError) a `Content-Type` that is not `application/json`. */
export function checkJsonType(contentType: string | undefined): void {
  const type = (contentType ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/json') throw new UnsupportedMediaTypeError();
}

/** The checks above as Hono middleware; `tokenSet` says whether the API wants a token. */
export function sameOrigin(tokenSet: boolean): MiddlewareHandler {
  return async (c, next) => {
    checkOrigin(
      { host: c.req.header('host') ?? new URL(c.req.url).host, origin: c.req.header('origin') },
      tokenSet,
    );
    if (c.req.method === 'POST') checkJsonType(c.req.header('content-type'));
    return next();
  };
}
