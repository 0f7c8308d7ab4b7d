import type { Request, RequestHandler } from 'express';
import { ApiError, serviceUnavailable } from '../../../shared/src/errors';
import { NOT_ADMITTED, type PrincipalResolver } from '../accounts/principal-resolver';
import type { LookupGate } from '../accounts/lookup-gate';
import { expiryRefusal } from '../keys/key-policy';
import { clientSubject } from '../limits/client-subject';
import { StoreUnavailableError } from '../store-errors';
import { invalidKey } from './authenticate';
import { v1Locals, type V1Locals } from './locals';

/** What lookUpKey needs of the key resolver: one store round trip for a key the caches could not answer. */
export type KeyLookup = Pick<PrincipalResolver, 'lookUp'>;

/**
 * Asks the store about the key authenticate could not answer from the caches, when the look-up
 * gate lets it (`accounts/lookup-gate.ts`: at once within the client's look-up budget, else in
 * the replica's look-up queue), so minted keys cost bounded store work and a valid key is never
 * refused for others' traffic. Nothing is charged here: a valid key then counts against its
 * account only, an invalid one against its client's anonymous budget (rateLimit). Requests that
 * arrive while the same key is being looked up share that lookup. A key that was valid until its
 * cache entry aged out or was refreshed is looked up without the gate (nobody can mint one).
 * Every outcome is an `authError` or a principal: the refusal is answered after rate limiting, so
 * even a store failure carries the rate-limit headers.
 */
export function lookUpKey(keys: KeyLookup, gate: Pick<LookupGate, 'admission'>, anonIpv6PrefixLength: number): RequestHandler {
  const resolve = async (req: Request, locals: V1Locals, pending: NonNullable<V1Locals['pendingKey']>): Promise<void> => {
    try {
      const admission = pending.recentlyValid ? undefined : gate.admission(clientSubject(req.ip, anonIpv6PrefixLength));
      const result = await keys.lookUp(pending.apiKey, admission);
      if (result === NOT_ADMITTED) locals.authError = serviceUnavailable('Too many API keys are waiting to be verified right now; retry shortly.');
      else if (result) {
        locals.authError = expiryRefusal(result, Date.now());
        if (!locals.authError) locals.principal = result;
      } else locals.authError = invalidKey();
    } catch (error) {
      if (error instanceof StoreUnavailableError) {
        req.log.warn({ err: error }, 'key store unavailable');
        locals.authError = serviceUnavailable('The API key cannot be verified right now; retry shortly.');
      } else {
        req.log.error({ err: error }, 'key lookup failed');
        locals.authError = new ApiError('internal_error', 'The server failed to handle the request.');
      }
    }
  };
  // Synchronous when the caches answered (nearly every request): no promise for Express to wait on.
  return (req, res, next) => {
    const locals = v1Locals(res);
    const pending = locals.pendingKey;
    if (!pending) return next();
    locals.pendingKey = undefined;
    resolve(req, locals, pending).then(() => next(), next);
  };
}
