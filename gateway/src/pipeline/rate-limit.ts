import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { ApiError } from '../../../shared/src/errors';
import { clientSubject } from '../limits/client-subject';
import { rateLimitHeaders } from '../limits/headers';
import type { LimitDecision, Limiter } from '../limits/types';
import { contextOf } from './context';

export interface RateLimitOptions {
  limiter: Limiter;
  anonPerMinute: number;
  /** IPv6 clients share one anonymous budget per network of this many leading bits. */
  anonIpv6PrefixLength: number;
  /** Sees every decision (metrics). */
  onDecision: (outcome: LimitDecision['outcome'], caller: 'key' | 'anonymous') => void;
}

/**
 * The rate limit, in two steps around the key lookup, so that every request is charged exactly
 * once to its client's anonymous budget or to its account (a valid key the caches did not know:
 * both, one anonymous unit for the lookup and one request to its account):
 *
 * `limitBeforeLookup` charges the anonymous per-IP budget for every request the key caches did not
 * recognise: no key, a refused key, or a key they cannot answer (the store must be asked). Over
 * the budget, the answer is 429 at once and the key is never looked up: a client minting keys
 * costs no store work past its anonymous budget. A key that was valid until its cache entry aged
 * out or was invalidated is not charged here (nobody can mint one).
 */
export function limitBeforeLookup(options: RateLimitOptions): RequestHandler {
  return async (req, res, next) => {
    const context = contextOf(res);
    if (context.principal || context.pendingKey?.recentlyValid) return next();
    await chargeAnonymous(options, req, res, next);
  };
}

/**
 * `rateLimit`, after the lookup: a recognised caller is charged to its account's windows (their
 * headers replace those of the anonymous charge for the lookup, if any); a caller still
 * unrecognised and not yet charged (a recently valid key that turned out revoked) to its anonymous
 * budget. Puts the rate-limit headers on the response whatever comes next, and refuses over the limit.
 */
export function rateLimit(options: RateLimitOptions): RequestHandler {
  return async (req, res, next) => {
    const { principal, anonymousDecision } = contextOf(res);
    if (!principal) {
      if (anonymousDecision) next();
      else await chargeAnonymous(options, req, res, next);
      return;
    }
    let decision: LimitDecision;
    try {
      decision = await options.limiter.consumeKey(principal);
    } catch (error) {
      // A store failure is never a 429; the limiter falls back by itself, so this is a bug.
      return next(error);
    }
    options.onDecision(decision.outcome, 'key');
    const retryAfter = applyHeaders(res, decision);
    if (decision.outcome === 'banned') {
      next(new ApiError('temporarily_banned', `This API key is temporarily banned for sending requests while rate limited; retry after ${retryAfter} seconds.`));
    } else if (decision.outcome === 'limited') {
      next(new ApiError('rate_limited', `Rate limit exceeded: the account's per-${decision.binding} limit is used up; retry after ${retryAfter} seconds.`));
    } else {
      next();
    }
  };
}

async function chargeAnonymous({ limiter, anonPerMinute, anonIpv6PrefixLength, onDecision }: RateLimitOptions, req: Request, res: Response, next: NextFunction): Promise<void> {
  const context = contextOf(res);
  let decision: LimitDecision;
  try {
    decision = await limiter.consumeAnonymous(clientSubject(req.ip ?? req.socket.remoteAddress, anonIpv6PrefixLength), anonPerMinute);
  } catch (error) {
    return next(error);
  }
  context.anonymousDecision = decision;
  onDecision(decision.outcome, 'anonymous');
  const retryAfter = applyHeaders(res, decision);
  if (decision.outcome === 'allowed') return next();
  const scope = context.pendingKey
    ? 'this address has used up its per-minute limit for requests without a recognised API key, and a key this server has not seen recently is checked within that limit'
    : 'the per-minute limit for requests without a valid API key is used up';
  next(new ApiError('rate_limited', `Rate limit exceeded: ${scope}; retry after ${retryAfter} seconds.`));
}

/** Sets the decision's headers (replacing any earlier ones); returns its Retry-After, if any. */
function applyHeaders(res: Response, decision: LimitDecision): string | undefined {
  const headers = rateLimitHeaders(decision, Date.now());
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  return headers['Retry-After'];
}
