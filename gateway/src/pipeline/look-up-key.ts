import { ApiError } from '../../../shared/src/errors';
import { NOT_ADMITTED, type PrincipalResolver } from '../accounts/principal-resolver';
import { expiryRefusal } from '../keys/key-policy';
import { StoreUnavailableError } from '../store-errors';
import { invalidKey } from './authenticate';
import type { Stage } from './exchange';
import type { AnonymousCharge } from './rate-limit';

/** What lookUpKey needs of the key resolver: one store round trip for a key the caches could not answer. */
export type KeyLookup = Pick<PrincipalResolver, 'lookUp'>;

/**
 * Asks the store about the key authenticate could not answer from the caches, once the request
 * has paid for it with one unit of its client's anonymous budget: over that budget, the answer is
 * 429 and the store is never asked, so the store work a client can cause is bounded by its
 * anonymous budget. Requests that arrive while the same key is being looked up share that lookup
 * and pay nothing for it. A key that was valid until its cache entry aged out or was invalidated
 * is looked up without a charge (nobody can mint one).
 */
export function lookUpKey(keys: KeyLookup, charge: AnonymousCharge): Stage {
  return async (context, next) => {
    const pending = context.pendingKey;
    if (!pending) return next();
    context.pendingKey = undefined;
    let refusal: ApiError | undefined;
    const admit = async () => {
      refusal = await charge(context, 'lookup');
      return refusal === undefined;
    };
    try {
      const result = await keys.lookUp(pending.apiKey, pending.recentlyValid ? undefined : admit);
      if (result === NOT_ADMITTED) return next(refusal);
      if (result) {
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
