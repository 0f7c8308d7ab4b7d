import type { Request, Response } from 'express';
import type { ApiError } from '../../../shared/src/errors';
import type { PlanName, Principal } from '../accounts/types';
import { ROUTES, type RouteMatch } from '../routes/route-table';

/**
 * What the `/v1` middleware tell each other about one request, on `res.locals` (where Express
 * users, and the operator's own middleware, expect per-request state). Every field is optional:
 * a middleware sets what it learns, later ones read it.
 */
export interface V1Locals {
  /** Set by identify when the request carries a valid key (from the key caches, or the store). */
  principal?: Principal;
  /** Set by identify when it does not: answered by authorize, after the anonymous limit is applied. */
  identityRefusal?: ApiError;
  /** The request's place in the route table (see `routeOf`). */
  route?: RouteMatch;
  /** The request body, read whole by readBody before anything is sent upstream. */
  body?: Buffer;
  /** The caller, for the operator's middleware (docs/extending.md): set just before them. */
  apiKey?: ApiKeyLocals;
}

/** The caller as the operator's middleware see it, on `res.locals.apiKey`. */
export interface ApiKeyLocals {
  readonly accountId: string;
  readonly keyId: string;
  readonly plan: PlanName;
}

/** This request's `/v1` state. */
export function v1Locals(res: Response): V1Locals {
  return res.locals as V1Locals;
}

/** The request's place in the route table (its path relative to `/v1`), matched on first use. */
export function routeOf(req: Request, res: Response): RouteMatch {
  const locals = res.locals as V1Locals;
  return (locals.route ??= ROUTES.match(req.method, req.path));
}
