/**
 * The token rule of both HTTP servers: when a token is set, every request (the
 * dashboard's `/api` routes and `/metrics`, every route of `weft serve`) needs
 * `Authorization: Bearer <token>`. The comparison is constant-time (both sides hashed to
 * the same length first, then `timingSafeEqual`), so timing says nothing about the token.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { UnauthorizedError, ValidationError } from '../../core/errors.js';
import { isLoopback } from './same-origin.js';

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/** Whether `given` is `token`, in time that does not depend on where they differ. */
export function sameToken(given: string, token: string): boolean {
  return timingSafeEqual(digest(given), digest(token));
}

/**
 * Refuses (UnauthorizedError) an `Authorization` header that is not `Bearer <token>`;
 * any header passes when `token` is undefined.
 */
export function checkToken(authorization: string | undefined, token: string | undefined): void {
  if (token === undefined) return;
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization ?? '');
  if (!match) throw new UnauthorizedError();
  if (!sameToken(match[1] as string, token)) throw new UnauthorizedError('the token is wrong');
}

/** {@link checkToken} as Hono middleware. */
export function requireToken(token: string | undefined): MiddlewareHandler {
  return async (c, next) => {
    checkToken(c.req.header('authorization'), token);
    return next();
  };
}

/**
 * Refuses (ValidationError TOKEN_REQUIRED) to listen on a host beyond loopback without a
 * token; `variable` names the environment variable that gives one.
 */
export function checkListenHost(host: string, token: string | undefined, variable: string): void {
  if (token !== undefined || isLoopback(host)) return;
  throw new ValidationError(
    `refusing to listen on ${host} without a token: set ${variable}, or pass --token-file or --token (only 127.0.0.1, ::1 and localhost need none)`,
    'host',
    { code: 'TOKEN_REQUIRED' },
  );
}

/**
 * Checks a token's text: 1–1024 printable ASCII characters without spaces (it travels in
 * an `Authorization` header). A ValidationError at `where` otherwise, which never quotes it.
 */
export function checkTokenText(token: string, where: string): string {
  if (!/^[\x21-\x7e]{1,1024}$/.test(token)) {
    throw new ValidationError(
      'a token is 1 to 1024 printable ASCII characters without spaces or line breaks',
      where,
      { code: 'BAD_TOKEN' },
    );
  }
  return token;
}
