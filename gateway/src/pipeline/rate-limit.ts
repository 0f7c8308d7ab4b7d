import type { RequestHandler } from 'express';
import { ApiError } from '../../../shared/src/errors';
import { rateLimitHeaders } from '../limits/headers';
import type { KeySubject, LimitDecision, Limiter } from '../limits/types';
import { contextOf } from './context';

export interface RateLimitOptions {
  limiter: Limiter;
  anonPerMinute: number;
  /** Sees every decision (metrics). */
  onDecision: (outcome: LimitDecision['outcome'], caller: 'key' | 'anonymous') => void;
  /** Sees every decision about a key with its windows (ops usage board, keys' last use); must only write to memory. */
  onKeyDecision?: (subject: KeySubject, decision: LimitDecision) => void;
}

/**
 * Counts the request against its account (or its IP without a valid key), puts the
 * rate-limit headers on the response whatever comes next, and refuses it when over.
 */
export function rateLimit({ limiter, anonPerMinute, onDecision, onKeyDecision }: RateLimitOptions): RequestHandler {
  return async (req, res, next) => {
    const { principal } = contextOf(res);
    let decision: LimitDecision;
    try {
      decision = principal
        ? await limiter.consumeKey(principal)
        : await limiter.consumeAnonymous(req.ip ?? req.socket.remoteAddress ?? 'unknown', anonPerMinute);
    } catch (error) {
      // A store failure is never a 429; the limiter falls back by itself, so this is a bug.
      next(error);
      return;
    }
    onDecision(decision.outcome, principal ? 'key' : 'anonymous');
    if (principal) onKeyDecision?.(principal, decision);
    const headers = rateLimitHeaders(decision, Date.now());
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);

    if (decision.outcome === 'banned') {
      next(new ApiError('temporarily_banned', `This API key is temporarily banned for sending requests while rate limited; retry after ${headers['Retry-After']} seconds.`));
    } else if (decision.outcome === 'limited') {
      const scope = principal ? `the account's per-${decision.binding} limit` : 'the per-minute limit for requests without a valid API key';
      next(new ApiError('rate_limited', `Rate limit exceeded: ${scope} is used up; retry after ${headers['Retry-After']} seconds.`));
    } else {
      next();
    }
  };
}
