import type { RequestHandler } from 'express';
import { ApiError } from '../../../shared/src/errors';
import { createInternalTokenVerifier, InvalidInternalToken, type InternalClaims } from '../../../shared/src/internal-token';

/** RFC 6750 `b64token`; the scheme name is case-insensitive. */
const BEARER = /^bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

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
    const match = BEARER.exec(req.headers.authorization ?? '');
    if (!match?.[1]) throw unauthorized('A bearer internal token is required.');
    let claims: InternalClaims;
    try {
      claims = verify(match[1]);
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
