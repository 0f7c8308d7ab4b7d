import type { RequestHandler, Response } from 'express';
import { ApiError } from '../../../shared/src/errors';
import { authorizationOf, sameSecret } from '../keys/api-key';
import { TokenFailures } from './token-failures';
import type { AdminToken } from './tokens';

/** Who is asking on the admin port: the bearer check of every admin route, and the actor it names. */

const REALM = 'Bearer realm="admin"';

/**
 * Compares the presented token with every admin token in constant time (each hashed first, so
 * lengths leak nothing either, and all are compared, so the time says nothing about which one
 * matched), and keeps the matching token's name as the request's actor.
 */
export function adminAuth(tokens: readonly AdminToken[], failures: TokenFailures = new TokenFailures()): RequestHandler {
  if (tokens.length === 0 || tokens.some(({ token }) => token.length === 0)) throw new Error('the admin token must not be empty');
  return async (req, res, next) => {
    const parsed = authorizationOf(req);
    if (!parsed.ok) {
      throw new ApiError('unauthorized', 'The admin API requires Authorization: Bearer <ADMIN_TOKEN>.', { 'WWW-Authenticate': REALM });
    }
    // Before the comparison: an address that must back off learns nothing about the token it sent.
    const address = req.socket.remoteAddress;
    const wait = await failures.reserve(address);
    if (wait !== null) {
      throw new ApiError('rate_limited', `Too many wrong admin tokens from this address: try again in ${wait} seconds.`, { 'Retry-After': String(wait) });
    }
    let actor: string | undefined;
    for (const { name, token } of tokens) if (sameSecret(parsed.token, token)) actor ??= name;
    if (actor === undefined) {
      throw new ApiError('unauthorized', 'The admin token is not valid.', { 'WWW-Authenticate': `${REALM}, error="invalid_token"` });
    }
    await failures.release(address);
    (res.locals as AdminLocals).actor = actor;
    next();
  };
}

interface AdminLocals {
  actor?: string;
}

/** The name of the admin token the request was authenticated with. */
export function actorOf(res: Response): string {
  const { actor } = res.locals as AdminLocals;
  if (actor === undefined) throw new Error('actorOf called on a route without adminAuth');
  return actor;
}
