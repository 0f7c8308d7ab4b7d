import type { Request, Response } from 'express';
import type { Principal } from '../accounts/types';
import type { LimitDecision } from '../limits/types';
import type { ApiError } from '../../../shared/src/errors';
import { ROUTES, type RouteMatch } from '../routes/route-table';

/** What the stages tell each other about one request, kept on `res.locals`. */
export interface RequestContext {
  /** Set by authenticate (from the key caches) or lookUpKey (from the store) when the request carries a valid key. */
  principal?: Principal;
  /** Set when it does not: answered after the anonymous limit is applied. */
  authError?: ApiError;
  /**
   * Set by authenticate for a well-formed key of this environment that the caches could not
   * answer; lookUpKey asks the store once the request has paid for it. `recentlyValid`: the key
   * was valid until its cache entry aged out or was invalidated, so its lookup is free (nobody
   * can mint such a key).
   */
  pendingKey?: { apiKey: string; recentlyValid: boolean };
  /** Set once the request has been charged to its client's anonymous budget (at most once). */
  anonymousDecision?: LimitDecision;
  /** The request's place in the route table, matched once (see `routeOf`). */
  route?: RouteMatch;
  /** The request body, read whole by the read-body stage before anything is sent upstream. */
  body?: Buffer;
}

export function contextOf(res: Response): RequestContext {
  return res.locals as RequestContext;
}

/** The route-table match of this request (path relative to `/v1`), computed on first use. */
export function routeOf(req: Request, res: Response): RouteMatch {
  const context = contextOf(res);
  context.route ??= ROUTES.match(req.method, req.path);
  return context.route;
}
