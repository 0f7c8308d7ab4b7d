import type { ErrorRequestHandler } from 'express';
import { ApiError } from '../../../shared/src/errors';

/**
 * The router decodes path parameters and throws a URIError (status 400) on bad
 * percent-encoding such as `/pets/%E0`; the shared handler would call that a 500.
 */
export const translateRoutingErrors: ErrorRequestHandler = (err, _req, _res, next) => {
  if (err instanceof URIError && (err as URIError & { status?: number }).status === 400) {
    next(new ApiError('invalid_parameter', 'The path holds invalid percent-encoding.'));
    return;
  }
  next(err);
};
