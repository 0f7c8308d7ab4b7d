import type { RequestHandler } from 'express';
import { ApiError, notAllowed } from '../../../shared/src/errors';
import { namesEndToEndHeader } from '../upstream/hop-by-hop';
import { routeOf } from './locals';

/**
 * Answers every request the pets-service must not see: an unacceptable path (400), an unknown one
 * (404), a method the path does not offer (405 with Allow), the sections not implemented yet
 * (501), and a `Connection` header that would strip `Idempotency-Key` on the way (400). Runs after
 * authentication and rate limiting, so each of these counts and carries the headers; before the
 * body is read, so none of them reads it.
 */
export const route: RequestHandler = (req, res, next) => {
  const match = routeOf(req, res);
  switch (match.kind) {
    case 'bad-path':
      return next(new ApiError('invalid_parameter', match.reason));
    case 'unknown':
      return next(new ApiError('not_found', `No operation at ${req.method} ${req.baseUrl}${req.path}.`));
    case 'not-implemented':
      return next(notImplemented());
    case 'path': {
      if (!match.operation) return next(notAllowed(req.method, `${req.baseUrl}${req.path}`, match.path.allow));
      if (match.operation.notImplemented) return next(notImplemented());
      if (namesEndToEndHeader(req.headers, 'idempotency-key')) return next(idempotencyKeyHopByHop());
      return next();
    }
  }
};

function idempotencyKeyHopByHop(): ApiError {
  return new ApiError(
    'invalid_parameter',
    'Connection names Idempotency-Key: a header named in Connection is hop-by-hop and would be removed before the request reaches the pets-service, so the create would not be idempotent. Leave Idempotency-Key out of Connection.',
  );
}

function notImplemented(): ApiError {
  return new ApiError('not_implemented', 'The store operations are not implemented yet.');
}
