import type { Request, RequestHandler } from 'express';
import { ApiError, serviceUnavailable } from '../../../shared/src/errors';
import type { ApiEnvironment } from '../../../shared/src/settings';
import { NOT_ADMITTED, type CachedKey, type PrincipalResolver } from '../accounts/principal-resolver';
import type { LookupGate } from '../accounts/lookup-gate';
import { API_KEY_PREFIXES, authorizationOf, hashApiKey, parseApiKey, type AuthorizationRefusal, type KeyHash } from '../keys/api-key';
import { expiryRefusal } from '../keys/key-policy';
import { clientSubject } from '../limits/client-subject';
import { StoreUnavailableError } from '../store-errors';
import type { Principal } from '../accounts/types';
import { v1Locals, type V1Locals } from './locals';

/** What identify needs of the key resolver: its caches' answer, and one store round trip when they have none. */
export type KeyResolver = Pick<PrincipalResolver, 'cached' | 'lookUp'>;

export interface IdentifyOptions {
  keys: KeyResolver;
  /** When a key the caches do not know may be looked up (`accounts/lookup-gate.ts`). */
  lookups: Pick<LookupGate, 'admission'>;
  /** This deployment's environment: a key of the other one is refused by its prefix. */
  environment: ApiEnvironment;
  /** IPv6 clients share one look-up budget per network of this many leading bits (as their anonymous budget). */
  anonIpv6PrefixLength: number;
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

/** The answer to a key that is malformed, unknown or revoked. */
function invalidKey(): ApiError {
  return unauthorized('The API key is invalid or has been revoked.');
}

/** The answer to a well-formed key of the other environment: it says where the key belongs. */
function otherEnvironment(keyEnvironment: ApiEnvironment, deployment: ApiEnvironment): ApiError {
  return unauthorized(`This is a ${keyEnvironment} key (${API_KEY_PREFIXES[keyEnvironment]}…); this is the ${deployment} API.`);
}

/**
 * Identifies the caller from the Authorization header only (never the query string): the key is
 * parsed (shape, checksum, environment) and hashed once, and its hash is asked of the key caches
 * (`accounts/principal-resolver.ts`). A key they cannot answer is looked up in the store when the
 * look-up gate lets it (at once within the client's look-up budget, else in the replica's queue),
 * so minted keys cost bounded store work and a valid key is never refused for others' traffic; a
 * key that was valid until its cache entry aged out or was refreshed skips the gate (nobody can
 * mint one). An expired key is refused like a revoked one, on time, from the cache.
 *
 * Nothing is refused here: the outcome is `principal` or `identityRefusal` on `res.locals`, and
 * the refusal is answered by `authorize` after the limits, so a request without a valid key is
 * charged to its client's anonymous budget first (key guessing is rate limited too) and even a
 * store failure carries the rate-limit headers. Synchronous when the caches answer (nearly every
 * request): no promise for Express to wait on.
 */
export function identify({ keys, lookups, environment, anonIpv6PrefixLength }: IdentifyOptions): RequestHandler {
  const lookUp = async (req: Request, locals: V1Locals, hash: KeyHash, recentlyValid: boolean): Promise<void> => {
    try {
      const admission = recentlyValid ? undefined : lookups.admission(clientSubject(req.ip, anonIpv6PrefixLength));
      const result = await keys.lookUp(hash, admission);
      if (result === NOT_ADMITTED) locals.identityRefusal = serviceUnavailable('Too many API keys are waiting to be verified right now; retry shortly.');
      else accept(locals, result);
    } catch (error) {
      if (error instanceof StoreUnavailableError) {
        req.log.warn({ err: error }, 'key store unavailable');
        locals.identityRefusal = serviceUnavailable('The API key cannot be verified right now; retry shortly.');
      } else {
        req.log.error({ err: error }, 'key lookup failed');
        locals.identityRefusal = new ApiError('internal_error', 'The server failed to handle the request.');
      }
    }
  };
  return (req, res, next) => {
    const locals = v1Locals(res);
    const authorization = authorizationOf(req);
    if (!authorization.ok) {
      locals.identityRefusal = unauthorized(REFUSALS[authorization.reason]);
      return next();
    }
    const key = parseApiKey(authorization.token);
    if (!key.ok) {
      locals.identityRefusal = invalidKey();
      return next();
    }
    if (key.environment !== environment) {
      locals.identityRefusal = otherEnvironment(key.environment, environment);
      return next();
    }
    const hash = hashApiKey(key.key);
    const answer: CachedKey = keys.cached(hash);
    if (answer.state === 'valid' || answer.state === 'refused') {
      accept(locals, answer.state === 'valid' ? answer.principal : null);
      return next();
    }
    lookUp(req, locals, hash, answer.state === 'recheck').then(() => next(), next);
  };
}

/** The key's principal, unless it is unknown, revoked or expired (the one expiry check, at this instant). */
function accept(locals: V1Locals, principal: Principal | null): void {
  if (!principal) locals.identityRefusal = invalidKey();
  else {
    const expired = expiryRefusal(principal, Date.now());
    if (expired) locals.identityRefusal = expired;
    else locals.principal = principal;
  }
}
