import type { RequestHandler } from 'express';
import { ApiError } from '../../../shared/src/errors';
import { StoreUnavailableError } from '../store-errors';
import type { Principal } from '../accounts/types';
import { parseAuthorization, type AuthorizationRefusal } from '../keys/api-key';
import { contextOf } from './context';

export interface KeyResolver {
  resolve(apiKey: string): Promise<Principal | null>;
}

const CHALLENGE = { 'WWW-Authenticate': 'Bearer realm="animal-store"' };
const REFUSALS: Record<AuthorizationRefusal, string> = {
  missing: 'An API key is required: send Authorization: Bearer <key>.',
  scheme: 'The Authorization header must use the Bearer scheme: Authorization: Bearer <key>.',
  empty: 'The Authorization header carries an empty API key.',
  malformed: 'The Authorization header is malformed; send Authorization: Bearer <key>.',
};

function unauthorized(message: string): ApiError {
  return new ApiError('unauthorized', message, CHALLENGE);
}

/**
 * Identifies the caller from the Authorization header only (never the query string).
 * A request without a valid key is not refused here: it is limited per IP first, so key
 * guessing is rate limited too, and then refused by `requireKey`.
 */
export function authenticate(keys: KeyResolver): RequestHandler {
  return async (req, res, next) => {
    const context = contextOf(res);
    // Node keeps only the first of several Authorization headers; a proxy in front might keep the last.
    const parsed = hasSeveralAuthorizations(req.rawHeaders) ? ({ ok: false, reason: 'malformed' } as const) : parseAuthorization(req.headers.authorization);
    if (!parsed.ok) {
      context.authError = unauthorized(REFUSALS[parsed.reason]);
      return next();
    }
    try {
      const principal = await keys.resolve(parsed.token);
      if (principal) context.principal = principal;
      else context.authError = unauthorized('The API key is invalid or has been revoked.');
    } catch (error) {
      // Answered after the rate-limit stage, so even this failure carries the rate-limit headers.
      if (error instanceof StoreUnavailableError) {
        req.log.warn({ err: error }, 'key store unavailable');
        context.authError = new ApiError('service_unavailable', 'The API key cannot be verified right now; retry shortly.', { 'Retry-After': '1' });
      } else {
        req.log.error({ err: error }, 'key lookup failed');
        context.authError = new ApiError('internal_error', 'The server failed to handle the request.');
      }
    }
    next();
  };
}

function hasSeveralAuthorizations(rawHeaders: string[]): boolean {
  let seen = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (rawHeaders[i]!.length === 13 && rawHeaders[i]!.toLowerCase() === 'authorization') seen += 1;
  }
  return seen > 1;
}

/** Refuses, after rate limiting, a request that authenticate could not identify. */
export const requireKey: RequestHandler = (_req, res, next) => {
  const { principal, authError } = contextOf(res);
  next(principal ? undefined : (authError ?? unauthorized(REFUSALS.missing)));
};
