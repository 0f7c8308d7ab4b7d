import { ApiError } from '../../../shared/src/errors';
import type { Exchange, Stage } from './exchange';

/**
 * Answers every request the pets-service must not see: an unacceptable path (400), an unknown one
 * (404), a method the path does not offer (405 with Allow), and the sections not implemented yet
 * (501). Runs after authentication and rate limiting, so each of these counts and carries the headers.
 */
export const route: Stage = (x, next) => {
  const match = x.route;
  const method = x.req.method ?? '';
  switch (match.kind) {
    case 'bad-path':
      return next(new ApiError('invalid_parameter', match.reason));
    case 'unknown':
      return next(new ApiError('not_found', `No operation at ${method} /v1${x.path}.`));
    case 'not-implemented':
      return next(notImplemented());
    case 'path': {
      if (!match.operation) {
        return next(methodNotAllowed(x, match.path.allow));
      }
      if (match.operation.notImplemented) return next(notImplemented());
      return next();
    }
  }
};

/** 405 for this request's method on its `/v1` path; `allow` lists the methods the path offers. */
export function methodNotAllowed(x: Exchange, allow: string): ApiError {
  return new ApiError('method_not_allowed', `${x.req.method ?? ''} is not allowed on /v1${x.path}; use ${allow}.`, { Allow: allow });
}

function notImplemented(): ApiError {
  return new ApiError('not_implemented', 'The store operations are not implemented yet.');
}
