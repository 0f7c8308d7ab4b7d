import type { ServerResponse } from 'node:http';
import type { RequestHandler, Response } from 'express';
import { ApiError } from '../../../shared/src/errors';
import { clientSubject } from '../limits/client-subject';
import { rateLimitHeaders } from '../limits/headers';
import type { Principal } from '../accounts/types';
import type { KeySubject, LimitDecision, Limiter } from '../limits/types';
import { traceRateLimit, tracingOn } from '../tracing/request-span';
import { v1Locals } from './locals';

export interface RateLimitOptions {
  limiter: Limiter;
  anonPerMinute: number;
  /** IPv6 clients share one anonymous budget per network of this many leading bits. */
  anonIpv6PrefixLength: number;
  /** Sees every decision (metrics). */
  onDecision: (outcome: LimitDecision['outcome'], caller: 'key' | 'anonymous') => void;
  /** Sees every decision about a key with its windows (ops usage board, keys' last use); must only write to memory. */
  onKeyDecision?: (subject: KeySubject, decision: LimitDecision) => void;
}

/**
 * Charges a request without a valid key to its client's anonymous budget, puts that limit's
 * headers on the response, and goes on, with the refusal to answer when the budget is spent. No
 * async frame: this runs on every request without a valid key (the 401 path, issue 29).
 */
function anonymousCharge({ limiter, anonPerMinute, anonIpv6PrefixLength, onDecision }: RateLimitOptions): RequestHandler {
  const decide = (res: Response, decision: LimitDecision): ApiError | undefined => {
    onDecision(decision.outcome, 'anonymous');
    const retryAfter = applyHeaders(res, decision);
    if (decision.outcome === 'allowed') return undefined;
    return new ApiError('rate_limited', `Rate limit exceeded: the per-minute limit for requests without a valid API key is used up; retry after ${retryAfter} seconds.`);
  };
  return (req, res, next) => {
    const subject = clientSubject(req.ip, anonIpv6PrefixLength);
    const decision = tracingOn()
      ? traceRateLimit(req, res, undefined, () => limiter.consumeAnonymous(subject, anonPerMinute))
      : limiter.consumeAnonymous(subject, anonPerMinute);
    decision.then((outcome) => next(decide(res, outcome)), next);
  };
}

/**
 * Counts the request against its account, or, without a valid key, against its client's anonymous
 * budget (once). A valid key is never charged anything anonymous, so other requests from its
 * address cannot get it refused. Puts the rate-limit headers on the response whatever comes next,
 * and refuses the request when over.
 */
export function rateLimit(options: RateLimitOptions): RequestHandler {
  const charge = anonymousCharge(options);
  /** The answer to the account's decision: a refusal, or undefined to go on. */
  const decide = (res: Response, principal: Principal, decision: LimitDecision): ApiError | undefined => {
    options.onDecision(decision.outcome, 'key');
    options.onKeyDecision?.(principal, decision);
    const retryAfter = applyHeaders(res, decision);
    if (decision.outcome === 'banned') {
      return new ApiError('temporarily_banned', `This API key is temporarily banned for sending requests while rate limited; retry after ${retryAfter} seconds.`);
    }
    if (decision.outcome === 'limited') {
      return new ApiError('rate_limited', `Rate limit exceeded: the account's per-${decision.binding} limit is used up; retry after ${retryAfter} seconds.`);
    }
    return undefined;
  };
  return (req, res, next) => {
    const { principal } = v1Locals(res);
    // A store failure is never a 429; the limiter falls back by itself, so a rejection is a bug (500).
    if (!principal) charge(req, res, next);
    else {
      // Tracing wants a promise to time; untraced, a refusal the limiter already knows is answered at once.
      const decision = tracingOn()
        ? traceRateLimit(req, res, principal, () => Promise.resolve(options.limiter.consumeKey(principal)))
        : options.limiter.consumeKey(principal);
      if (decision instanceof Promise) decision.then((outcome) => next(decide(res, principal, outcome)), next);
      else next(decide(res, principal, decision));
    }
  };
}

/** Sets the decision's headers (replacing any earlier ones); returns its Retry-After, if any. */
function applyHeaders(res: ServerResponse, decision: LimitDecision): string | undefined {
  const headers = rateLimitHeaders(decision, Date.now());
  // for…in, not Object.entries: no array of pairs per response (issue 29).
  for (const name in headers) res.setHeader(name, headers[name]!);
  return headers['Retry-After'];
}
