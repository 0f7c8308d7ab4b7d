import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { ErrorAnswer } from '../../../shared/src/errors';
import { v1Locals, type ApiKeyLocals } from '../pipeline/locals';

/**
 * One of the operator's middleware (docs/extending.md) as the `/v1` router runs it: what it passes
 * to `next`, throws or rejects with goes on to the error handler, an error with `status` 400–499
 * and a string `code` as a refusal of the operator's own (`operatorRefusal`: its status, code and
 * message, nothing else), anything else as a fault (`OperatorFault`: 500 `internal_error`, logged). `next('route')` and `next('router')` keep their meaning.
 */
function mountOperatorMiddleware(middleware: RequestHandler): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const pass = (error?: unknown): void => {
      if (error === undefined || error === null || error === 'route' || error === 'router') next(error as undefined);
      else next(withRetryAfter(operatorRefusal(error), res) ?? new OperatorFault(error));
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
 * Every 429 carries Retry-After (CONTRACT, "Abuse limits"): an operator's 429 keeps one its
 * middleware set on the response, and otherwise says 1 second, the least a client may be told.
 */
function withRetryAfter(refusal: ErrorAnswer | undefined, res: Response): ErrorAnswer | undefined {
  if (refusal?.status !== 429 || res.getHeader('Retry-After') !== undefined) return refusal;
  return new ErrorAnswer(refusal.code, refusal.status, refusal.message, { 'Retry-After': '1' });
}

/**
 * Any other error of an operator's middleware, for the error handler: a fault (500 `internal_error`,
 * logged with the original as `cause`). Wrapped so that no other field of the original reaches the
 * handler: its `headers`, or a `status` 412 or 416 or a `type` such as `entity.too.large` that the
 * gateway reads on errors of its own parts (the `/docs` files, the body parser).
 */
export class OperatorFault extends Error {
  constructor(cause: unknown) {
    // pino's error serializer adds the cause's message and stack to this one's.
    super(cause instanceof Error ? 'an operator middleware failed' : `an operator middleware failed with ${typeof cause}: ${String(cause)}`, { cause });
    this.name = 'OperatorFault';
  }
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

/**
 * The `/v1` middleware that run the operator's own, in order, after authentication and rate
 * limiting (the caller is known and counted): first `res.locals.apiKey`, then each of theirs.
 * None at all when the operator has none.
 */
export function operatorStages(middleware: readonly RequestHandler[]): RequestHandler[] {
  if (middleware.length === 0) return [];
  return [exposeApiKey, ...middleware.map(mountOperatorMiddleware)];
}

const exposeApiKey: RequestHandler = (_req, res, next) => {
  const locals = v1Locals(res);
  const { principal } = locals;
  if (principal) locals.apiKey = Object.freeze<ApiKeyLocals>({ accountId: principal.accountId, keyId: principal.keyId, plan: principal.plan });
  next();
};
