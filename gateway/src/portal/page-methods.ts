import type { RequestHandler } from 'express';
import { ApiError } from '../../../shared/src/errors';

/** The answer of a portal page to a method it does not take: 405 with `Allow`, shown as a page. */
export function pageMethodNotAllowed(allowed: readonly string[]): RequestHandler {
  return (req) => {
    throw new ApiError('method_not_allowed', `${req.method} is not allowed here; use ${allowed.join(' or ')}.`, { Allow: allowed.join(', ') });
  };
}
