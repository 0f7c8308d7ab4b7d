import type { RequestHandler } from 'express';
import { ApiError } from '../../../shared/src/errors';
import type { PrincipalResolver } from '../accounts/principal-resolver';
import { StoreUnavailableError } from '../store-errors';
import { invalidKey } from './authenticate';
import { contextOf } from './context';

/** What lookUpKey needs of the key resolver: one store round trip for a key the caches could not answer. */
export type KeyLookup = Pick<PrincipalResolver, 'lookUp'>;

/**
 * Asks the store about the key authenticate could not answer from the caches. It runs after the
 * anonymous limit has charged (and, over the limit, refused) the request, so the store work a
 * client can cause is bounded by its anonymous budget.
 */
export function lookUpKey(keys: KeyLookup): RequestHandler {
  return async (req, res, next) => {
    const context = contextOf(res);
    const pending = context.pendingKey;
    if (!pending) return next();
    context.pendingKey = undefined;
    try {
      const principal = await keys.lookUp(pending.apiKey);
      if (principal) context.principal = principal;
      else context.authError = invalidKey();
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
