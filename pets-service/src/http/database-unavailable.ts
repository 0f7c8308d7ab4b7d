import type { ErrorRequestHandler } from 'express';
import { serviceUnavailable } from '../../../shared/src/errors';
import { DatabaseUnavailableError } from '../db/unavailable';

/**
 * A database that is busy, unreachable or saturated is answered 503 with Retry-After: the client
 * (or the gateway's caller) may retry shortly, and nothing was written. Its cause goes to the log,
 * with the request id, for the operators; the client sees no internals.
 */
export const databaseUnavailable: ErrorRequestHandler = (err, req, _res, next) => {
  if (!(err instanceof DatabaseUnavailableError)) {
    next(err);
    return;
  }
  req.log.warn({ err: err.cause }, 'database unavailable: answered 503');
  next(serviceUnavailable('The pet store is unavailable right now; retry shortly.'));
};
