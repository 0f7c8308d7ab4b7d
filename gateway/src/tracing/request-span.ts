import type { Request, Response } from 'express';
import type { Attributes } from '@opentelemetry/api';
import { tracing } from '../../../shared/src/tracing/runtime';
import type { Principal } from '../accounts/types';
import type { LimitDecision } from '../limits/types';
import { routeOf } from '../pipeline/locals';

/**
 * What a `/v1` request's trace says about the gateway's own work (operating contract, "Tracing"):
 * the rate-limit decision as a span of its own (the limiter's Redis call inside it), and on the
 * server span the caller (`animal_store.account_id`, `key_id`, `plan`), the decision and the
 * route. The stages call these helpers and nothing else of tracing; with tracing off they cost a
 * property read (`tracingOn()`) at the call site and nothing more.
 */

/** `accepted`, `limited` or `banned` for a key; `anonymous` for a request charged to its address's budget and let through. */
export type TracedDecision = 'accepted' | 'limited' | 'banned' | 'anonymous';

export const ATTR_ACCOUNT_ID = 'animal_store.account_id';
export const ATTR_KEY_ID = 'animal_store.key_id';
export const ATTR_PLAN = 'animal_store.plan';
export const ATTR_RATE_LIMIT_DECISION = 'animal_store.rate_limit.decision';

/** Whether spans are made: callers check it before building anything for them. */
export function tracingOn(): boolean {
  return tracing !== undefined;
}

export function tracedDecisionOf(principal: Principal | undefined, outcome: LimitDecision['outcome']): TracedDecision {
  if (outcome === 'allowed') return principal ? 'accepted' : 'anonymous';
  return outcome;
}

/**
 * Runs the limiter's call (`decide`) in a `rate-limit` span, then writes the caller and the decision
 * on that span and on the request's server span, and the route on the server span. Call only when
 * `tracingOn()`.
 */
export function traceRateLimit(req: Request, res: Response, principal: Principal | undefined, decide: () => Promise<LimitDecision>): Promise<LimitDecision> {
  const runtime = tracing;
  if (!runtime) return decide();
  return runtime.inSpanAsync('rate-limit', {}, async (span) => {
    const decision = await decide();
    const attributes: Attributes = { [ATTR_RATE_LIMIT_DECISION]: tracedDecisionOf(principal, decision.outcome) };
    if (principal) {
      attributes[ATTR_ACCOUNT_ID] = principal.accountId;
      attributes[ATTR_KEY_ID] = principal.keyId;
      attributes[ATTR_PLAN] = principal.plan;
    }
    span.setAttributes(attributes);
    const server = runtime.serverSpanOf(req);
    if (server?.isRecording()) {
      server.setAttributes(attributes);
      const route = routeOf(req, res);
      // A documented path's template (`/v1/pets/{petId}`); an unknown path gets none (its values would be unbounded).
      if (route.kind === 'path') runtime.setRoute(req, `${req.baseUrl}${route.path.template}`);
    }
    return decision;
  });
}
