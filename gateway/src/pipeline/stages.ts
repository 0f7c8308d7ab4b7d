import type { NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * Runs the stages of the `/v1` pipeline in their fixed order, each an ordinary Express handler:
 * `next()` runs the next stage, `next(error)` ends the pipeline with that error (for the app's
 * error handler), and a stage's rejected promise or thrown error does the same.
 *
 * A plain loop rather than an Express Router: a router matches a path and sets up parameters for
 * every layer of every request, work this fixed sequence does not need (measured in
 * docs/performance.md).
 */
export function runStages(stages: readonly RequestHandler[]): RequestHandler {
  return (req: Request, res: Response, done: NextFunction) => {
    let index = 0;
    const next = (error?: unknown): void => {
      if (error !== undefined && error !== null && error !== 'route' && error !== 'router') return done(error);
      const stage = stages[index++];
      if (!stage) return done();
      try {
        const result: unknown = stage(req, res, next);
        if (result instanceof Promise) result.catch(next);
      } catch (thrown) {
        next(thrown ?? new Error('a pipeline stage threw nothing'));
      }
    };
    next();
  };
}

/** A stage that answers one path itself (`/openapi.json`) and passes every other request on. */
export function onPath(path: string, methods: readonly string[], answer: RequestHandler, refuse: RequestHandler): RequestHandler {
  return (req, res, next) => {
    if (req.path !== path && req.path !== `${path}/`) return next();
    return methods.includes(req.method) ? answer(req, res, next) : refuse(req, res, next);
  };
}
