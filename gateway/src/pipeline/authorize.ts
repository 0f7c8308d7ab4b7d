import type { RequestHandler } from 'express';
import { ApiError } from '../../../shared/src/errors';
import { accessRefusal } from '../keys/key-policy';
import { v1Locals } from './locals';
import { requestPathsOf } from './route-path';

/**
 * What a caller may do, decided after the limits, so every refusal here was counted and carries
 * the rate-limit headers: a request without a valid key gets the refusal `identify` left (unless it
 * asks for one of `keylessPaths`, answered to anyone); a read-only key's write gets 403
 * (`keys/key-policy.ts`). `keylessPaths` are matched as Express matches a route path (exactly, or
 * with one trailing slash), so this stage and the stage mounted on them agree on every request.
 */
export function authorize(keylessPaths: readonly string[]): RequestHandler {
  const keyless = new Set(keylessPaths.flatMap(requestPathsOf));
  return (req, res, next) => {
    const { principal, identityRefusal } = v1Locals(res);
    if (principal) next(accessRefusal(principal, req.method));
    else if (keyless.has(req.path)) next();
    // Fails closed: no principal and no refusal means identify did not run (a bug, never a pass).
    else next(identityRefusal ?? new ApiError('internal_error', 'The server failed to handle the request.'));
  };
}
