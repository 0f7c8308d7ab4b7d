import { ApiError } from '../../../shared/src/errors';
import { NOT_ADMITTED, type PrincipalResolver } from '../accounts/principal-resolver';
import type { LookupGate } from '../accounts/lookup-gate';
import { expiryRefusal } from '../keys/key-policy';
import { clientSubject } from '../limits/client-subject';
import { StoreUnavailableError } from '../store-errors';
import { invalidKey } from './authenticate';
import type { Stage } from './exchange';

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
 */
export function lookUpKey(keys: KeyLookup, gate: Pick<LookupGate, 'admission'>, anonIpv6PrefixLength: number): Stage {
  return async (context, next) => {
    const pending = context.pendingKey;
    if (!pending) return next();
    context.pendingKey = undefined;
    try {
      const admission = pending.recentlyValid ? undefined : gate.admission(clientSubject(context.ip, anonIpv6PrefixLength));
      const result = await keys.lookUp(pending.apiKey, admission);
      if (result === NOT_ADMITTED) context.authError = new ApiError('service_unavailable', 'Too many API keys are waiting to be verified right now; retry shortly.', { 'Retry-After': '1' });
      else if (result) {
        context.authError = expiryRefusal(result, Date.now());
        if (!context.authError) context.principal = result;
      } else context.authError = invalidKey();
    } catch (error) {
      // Answered after the rate-limit stage, so even this failure carries the rate-limit headers.
      if (error instanceof StoreUnavailableError) {
        context.log.warn({ err: error }, 'key store unavailable');
        context.authError = new ApiError('service_unavailable', 'The API key cannot be verified right now; retry shortly.', { 'Retry-After': '1' });
      } else {
        context.log.error({ err: error }, 'key lookup failed');
        context.authError = new ApiError('internal_error', 'The server failed to handle the request.');
      }
    }
    next();
  };
}
