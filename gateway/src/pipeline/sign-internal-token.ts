import type { RequestHandler } from 'express';
import { GATEWAY_ISSUER, signInternalToken } from '../../../shared/src/internal-token';
import { contextOf } from './context';

/** Token lifetime: long enough for the slowest upstream answer, far below the 5-minute ceiling. */
const LIFETIME_SECONDS = 60;

/**
 * Replaces the client's API key with a short-lived internal token naming the account:
 * the pets-service never sees a client's key.
 */
export function signInternalTokenStage(secret: string): RequestHandler {
  return (req, res, next) => {
    const { principal } = contextOf(res);
    if (!principal) {
      next(new Error('sign-internal-token reached without an authenticated principal'));
      return;
    }
    const token = signInternalToken(secret, { issuer: GATEWAY_ISSUER, subject: principal.accountId, lifetimeSeconds: LIFETIME_SECONDS });
    req.headers.authorization = `Bearer ${token}`;
    next();
  };
}
