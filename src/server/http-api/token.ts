/**
 * The dashboard's token rule: when a token is set, every `/api` route and `/metrics` needs
 * `Authorization: Bearer <token>`. The comparison is constant-time (both sides hashed to
 * the same length first, then `timingSafeEqual`), so timing says nothing about the token.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { UnauthorizedError } from '../../core/errors.js';

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/** Whether `given` is `token`, in time that does not depend on where they differ. */
export function sameToken(given: string, token: string): boolean {
  return timingSafeEqual(digest(given), digest(token));
}

/** Refuses requests without the token (no-op when `token` is undefined). */
export function requireToken(token: string | undefined): MiddlewareHandler {
  return async (c, next) => {
    if (token === undefined) return next();
    const header = c.req.header('authorization') ?? '';
    const match = /^Bearer\s+(.+)$/i.exec(header);
    if (!match) throw new UnauthorizedError();
    if (!sameToken((match[1] as string).trim(), token)) {
      throw new UnauthorizedError('the token is wrong');
    }
    return next();
  };
}
