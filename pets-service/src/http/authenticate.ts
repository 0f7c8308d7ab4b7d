import type { RequestHandler } from 'express';
import { parseAuthorization } from '../../../shared/src/authorization';
import { ApiError } from '../../../shared/src/errors';
import { createInternalTokenVerifier, InvalidInternalToken, type InternalClaims } from '../../../shared/src/internal-token';

function unauthorized(message: string): ApiError {
  return new ApiError('unauthorized', message, { 'WWW-Authenticate': 'Bearer' });
}

/**
 * Lets through only requests carrying a valid internal token (from the gateway or another
 * internal service). Why a token failed is logged, not told: the caller is a service, and
 * its operators read our logs.
 */
export function authenticateInternalToken(secret: string): RequestHandler {
  const verify = createInternalTokenVerifier(secret);
  return (req, res, next) => {
    const bearer = parseAuthorization(req.headers.authorization);
    if (!bearer.ok) throw unauthorized('A bearer internal token is required.');
    let claims: InternalClaims;
    try {
      claims = verify(bearer.token);
    } catch (error) {
      if (!(error instanceof InvalidInternalToken)) throw error;
      req.log.warn({ reason: error.message }, 'internal token refused');
      throw unauthorized('The internal token is not valid.');
    }
    // The access log names the caller from here.
    res.locals.caller = claims;
    next();
  };
}
