import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { ErrorAnswer } from '../../../shared/src/errors';

/**
 * One of the operator's middleware (docs/extending.md) as the `/v1` router runs it: what it passes
 * to `next`, throws or rejects with goes on to the error handler, an error with `status` 400–499
 * and a string `code` as a refusal of the operator's own (`operatorRefusal`), anything else as a
 * fault (500 `internal_error`, logged). `next('route')` and `next('router')` keep their meaning.
 */
export function mountOperatorMiddleware(middleware: RequestHandler): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const pass = (error?: unknown): void => {
      if (error === undefined || error === null || error === 'route' || error === 'router') next(error as undefined);
      else next(operatorRefusal(error) ?? error);
    };
    try {
      const result: unknown = middleware(req, res, pass);
      if (result instanceof Promise) result.catch((error: unknown) => pass(error ?? new Error('an operator middleware rejected with nothing')));
    } catch (error) {
      pass(error ?? new Error('an operator middleware threw nothing'));
    }
  };
}

/**
 * An operator's error meant as an answer: `status` an integer 400–499 and `code` a non-empty
 * string. The code is the operator's own, beside the documented catalogue; the message is theirs.
 */
export function operatorRefusal(error: unknown): ErrorAnswer | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { status, code, message } = error as { status?: unknown; code?: unknown; message?: unknown };
  if (typeof status !== 'number' || !Number.isInteger(status) || status < 400 || status > 499) return undefined;
  if (typeof code !== 'string' || code === '') return undefined;
  return new ErrorAnswer(code, status, typeof message === 'string' ? message : '');
}
