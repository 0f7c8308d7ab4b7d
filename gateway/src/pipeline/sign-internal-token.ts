import { GATEWAY_ISSUER, signInternalToken } from '../../../shared/src/internal-token';
import { LruMap } from '../accounts/lru-map';

/** Token lifetime: long enough for the slowest upstream answer, far below the 5-minute ceiling. */
const LIFETIME_SECONDS = 60;

/**
 * Replaces the client's API key with a short-lived internal token naming the account: the
 * pets-service never sees a client's key. Returns the `Authorization` value for the upstream.
 *
 * One token per request, as the contract says, but not one signature per request: a token's
 * claims are the account and the second it was issued in (`iat`, and `exp` from it), and HS256 is
 * deterministic, so every token minted for an account within one second is the same string. It is
 * signed once per account and second, and reused within that second.
 */
export function internalAuthorization(secret: string, now: () => number = Date.now): (accountId: string) => string {
  const minted = new LruMap<string, { second: number; header: string }>(10_000);
  return (accountId) => {
    const second = Math.floor(now() / 1000);
    const known = minted.get(accountId);
    if (known?.second === second) return known.header;
    const header = `Bearer ${signInternalToken(secret, { issuer: GATEWAY_ISSUER, subject: accountId, lifetimeSeconds: LIFETIME_SECONDS })}`;
    minted.set(accountId, { second, header });
    return header;
  };
}
