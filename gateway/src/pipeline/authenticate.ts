import type { RequestHandler } from 'express';
import { ApiError } from '../../../shared/src/errors';
import type { ApiEnvironment } from '../../../shared/src/settings';
import type { PrincipalResolver } from '../accounts/principal-resolver';
import { API_KEY_PREFIXES, authorizationOf, parseApiKey, type AuthorizationRefusal } from '../keys/api-key';
import { expiryRefusal } from '../keys/key-policy';
import { v1Locals } from './locals';

/** What authenticate needs of the key resolver: its caches' answer, never a store call. */
export type KeyCache = Pick<PrincipalResolver, 'cached'>;

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

/** The answer to a key that is malformed, unknown or revoked. */
export function invalidKey(): ApiError {
  return unauthorized('The API key is invalid or has been revoked.');
}

/** The answer to a well-formed key of the other environment: it says where the key belongs. */
function otherEnvironment(keyEnvironment: ApiEnvironment, deployment: ApiEnvironment): ApiError {
  return unauthorized(`This is a ${keyEnvironment} key (${API_KEY_PREFIXES[keyEnvironment]}…); this is the ${deployment} API.`);
}

/**
 * Identifies the caller from the Authorization header only (never the query string), from the key
 * caches alone: no store work happens here. A key of the other environment is refused by its
 * prefix. A key the caches cannot answer is left for lookUpKey, which asks the store when the
 * look-up gate lets it. A request without a valid key is not refused here: it is limited per
 * IP first, so key guessing is rate limited too, and then refused by `requireKey`.
 */
export function authenticate(keys: KeyCache, environment: ApiEnvironment): RequestHandler {
  return (req, res, next) => {
    const locals = v1Locals(res);
    const parsed = authorizationOf(req);
    if (!parsed.ok) {
      locals.authError = unauthorized(REFUSALS[parsed.reason]);
      return next();
    }
    const key = parseApiKey(parsed.token);
    if (!key.ok) {
      locals.authError = invalidKey();
      return next();
    }
    if (key.environment !== environment) {
      locals.authError = otherEnvironment(key.environment, environment);
      return next();
    }
    const answer = keys.cached(key.key);
    if (answer.state === 'valid') {
      // An expired key is refused like a revoked one (after the anonymous limit), on time, from the cache.
      locals.authError = expiryRefusal(answer.principal, Date.now());
      if (!locals.authError) locals.principal = answer.principal;
    } else if (answer.state === 'refused') locals.authError = invalidKey();
    else locals.pendingKey = { apiKey: key.key, recentlyValid: answer.state === 'recheck' };
    next();
  };
}

/** The answer to a request that carries no key at all. */
export function missingKey(): ApiError {
  return unauthorized(REFUSALS.missing);
}
