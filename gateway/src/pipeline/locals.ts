import type { Request, Response } from 'express';
import type { ApiError } from '../../../shared/src/errors';
import type { Principal } from '../accounts/types';
import { ROUTES, type RouteMatch } from '../routes/route-table';

/**
 * What the `/v1` middleware tell each other about one request, on `res.locals` (where Express
 * users, and the operator's own middleware, expect per-request state). Every field is optional:
 * a middleware sets what it learns, later ones read it.
 */
export interface V1Locals {
  /** Set by authenticate (from the key caches) or lookUpKey (from the store) when the request carries a valid key. */
  principal?: Principal;
  /** Set when it does not: answered after the anonymous limit is applied. */
  authError?: ApiError;
  /**
   * Set by authenticate for a well-formed key of this environment that the caches could not
   * answer; lookUpKey asks the store when the look-up gate lets it. `recentlyValid`: the key was
   * valid until its cache entry aged out or was refreshed, so its lookup skips the gate (nobody
   * can mint such a key).
   */
  pendingKey?: { apiKey: string; recentlyValid: boolean };
  /** The request's place in the route table (see `routeOf`). */
  route?: RouteMatch;
  /** The request body, read whole by readBody before anything is sent upstream. */
  body?: Buffer;
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
