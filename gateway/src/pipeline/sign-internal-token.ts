import { GATEWAY_ISSUER, signInternalToken } from '../../../shared/src/internal-token';

/** Token lifetime: long enough for the slowest upstream answer, far below the 5-minute ceiling. */
const LIFETIME_SECONDS = 60;

/**
 * Replaces the client's API key with a short-lived internal token naming the account:
 * the pets-service never sees a client's key. Returns the `Authorization` value for the upstream.
 */
export function internalAuthorization(secret: string): (accountId: string) => string {
  return (accountId) => `Bearer ${signInternalToken(secret, { issuer: GATEWAY_ISSUER, subject: accountId, lifetimeSeconds: LIFETIME_SECONDS })}`;
}
