/**
 * What keeps other web sites out of a dashboard on this machine. Without a token the
 * dashboard trusts whoever can reach its loopback port, so it makes sure the caller is
 * not a page elsewhere that the user's browser happens to have open:
 *
 * - every POST must say `Content-Type: application/json` (415 otherwise): a page on
 *   another origin cannot send that without a CORS preflight, which the API never
 *   grants, so it cannot trigger an action (cross-site request forgery);
 * - a request with an `Origin` header from another host is refused (403);
 * - without a token, the `Host` header must name a loopback host (403 otherwise), so a
 *   domain re-pointed at 127.0.0.1 (DNS rebinding) cannot read the API either.
 */
import type { MiddlewareHandler } from 'hono';
import { ForbiddenOriginError, UnsupportedMediaTypeError } from '../../core/errors.js';

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/** The host name of a `Host` header or an origin's host (`name:port`, `[v6]:port`). */
function hostName(host: string): string {
  const lower = host.trim().toLowerCase();
  if (lower.startsWith('[')) return lower.slice(0, lower.indexOf(']') + 1);
  return lower.split(':')[0] as string;
}

function isLoopbackName(name: string): boolean {
  return LOOPBACK_NAMES.has(name) || /^127\.\d+\.\d+\.\d+$/.test(name);
}

/** The checks above; `tokenSet` says whether the API wants a token (then any Host will do). */
export function sameOrigin(tokenSet: boolean): MiddlewareHandler {
  return async (c, next) => {
    const host = c.req.header('host') ?? new URL(c.req.url).host;
    if (!tokenSet && !isLoopbackName(hostName(host))) {
      throw new ForbiddenOriginError(
        `host ${JSON.stringify(host)} is not this machine; a dashboard without a token answers only to localhost`,
      );
    }
    const origin = c.req.header('origin');
    if (origin !== undefined && origin !== 'null') {
      let originHost = '';
      try {
        originHost = new URL(origin).host;
      } catch {
        originHost = '';
      }
      if (originHost.toLowerCase() !== host.toLowerCase()) {
        throw new ForbiddenOriginError(`requests from ${origin} are not allowed`);
      }
    } else if (origin === 'null') {
      throw new ForbiddenOriginError('requests from an opaque origin are not allowed');
    }
    if (c.req.method === 'POST') {
      const type = (c.req.header('content-type') ?? '').split(';')[0]?.trim().toLowerCase();
      if (type !== 'application/json') throw new UnsupportedMediaTypeError();
    }
    return next();
  };
}
