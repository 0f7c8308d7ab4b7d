import type { ErrorRequestHandler, NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * Middleware run one after the other inside one layer of an Express router, as the router would
 * run them as layers of their own: what one throws, rejects with or passes to `next` goes on to
 * the router's next error handler, `next('route')` goes on to the next middleware, and
 * `next('router')` leaves them all. With `answerError` (the app's error handler), errors go to it
 * directly (`fail`).
 *
 * Why: the router's step between two layers (the path parsed and matched again, a match object,
 * closures) was 7 of the 88 KB a gateway request allocated on Node 20, for nothing a stage of
 * ours uses (issue 29, docs/performance.md).
 */
export function inOrder(handlers: readonly RequestHandler[], answerError?: ErrorRequestHandler): RequestHandler {
  const last = handlers.length;
  return (req, res, done) => {
    let index = 0;
    const next = (error?: unknown): void => {
      if (error === 'router') return done();
      if (error !== undefined && error !== null && error !== 'route') return fail(answerError, error, req, res, done);
      if (index === last) return done();
      const handler = handlers[index++]!;
      try {
        const result: unknown = handler(req, res, next);
        // As Express 5's router: a rejection without a reason is still an error.
        if (result instanceof Promise) result.catch((rejection: unknown) => fail(answerError, rejection ?? new Error('Rejected promise'), req, res, done));
      } catch (thrown) {
        fail(answerError, thrown, req, res, done);
      }
    };
    next();
  };
}

/**
 * An error goes to `answerError` when there is one, straight from this layer: the router would
 * only have carried it past the app's later layers, matching each one's path on the way, to the
 * same error handler (issue 29: a refusal from /v1 walked two layers for nothing). Otherwise it
 * goes on to the router.
 */
function fail(answerError: ErrorRequestHandler | undefined, error: unknown, req: Request, res: Response, done: NextFunction): void {
  if (answerError) answerError(error, req, res, done);
  else done(error);
}
