import type { RequestHandler } from 'express';
import { ApiError } from '../../../shared/src/errors';
import { MAX_BODY_BYTES } from '../../../shared/src/json-body';

interface Route {
  pattern: RegExp;
  methods: readonly string[];
  /** The operation the gateway answers itself, if it is not proxied. */
  answer?: () => ApiError;
}

/** The public operations under /v1; anything else is answered here and never reaches the pets-service. */
const ROUTES: readonly Route[] = [
  { pattern: /^\/pets\/?$/, methods: ['GET', 'HEAD', 'POST'] },
  { pattern: /^\/pets\/[^/]+\/?$/, methods: ['GET', 'HEAD'] },
  {
    pattern: /^\/store(\/.*)?$/,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    answer: () => new ApiError('not_implemented', 'The store operations are not implemented yet.'),
  },
];

export const route: RequestHandler = (req, _res, next) => {
  const match = ROUTES.find((candidate) => candidate.pattern.test(req.path));
  if (!match) {
    next(new ApiError('not_found', `No operation at ${req.method} /v1${req.path}.`));
  } else if (!match.methods.includes(req.method)) {
    const allow = match.methods.join(', ');
    next(new ApiError('method_not_allowed', `${req.method} is not allowed on /v1${req.path}; use ${allow}.`, { Allow: allow }));
  } else if (match.answer) {
    next(match.answer());
  } else if (Number(req.headers['content-length'] ?? 0) > MAX_BODY_BYTES) {
    // Declared too large: refused here rather than streamed to the pets-service only to be refused there.
    next(new ApiError('payload_too_large', `The request body is larger than ${MAX_BODY_BYTES / 1024} KiB.`));
  } else {
    next();
  }
};
