import type { LimitDecision, WindowState } from './types';
import { bindingWindow } from './windows';

/**
 * The rate-limit headers of one response, per the contract: the X-RateLimit-* trio and the IETF
 * `RateLimit` field describe one window (the one closest to refusing), `RateLimit-Policy` lists all.
 * Times are rounded up so a client that waits until Reset / Retry-After is never refused for
 * having come back a fraction of a second early.
 */
export function rateLimitHeaders(decision: LimitDecision, nowMs: number): Record<string, string> {
  const headers: Record<string, string> = {};
  const { windows } = decision;
  if (windows.length > 0) headers['RateLimit-Policy'] = windows.map((w) => `"${w.name}";q=${w.limit};w=${w.windowSeconds}`).join(', ');

  const shown = decision.outcome === 'limited' ? (windows.find((w) => w.name === decision.binding) ?? bindingWindow(windows)) : bindingWindow(windows);

  if (decision.outcome === 'banned') {
    const endMs = Math.max(decision.bannedUntilMs, nowMs);
    if (shown) Object.assign(headers, describe(shown, 0, endMs, nowMs));
    headers['Retry-After'] = String(retryAfterSeconds(endMs - nowMs));
    return headers;
  }

  if (shown) {
    const remaining = decision.outcome === 'limited' ? 0 : clampRemaining(shown);
    Object.assign(headers, describe(shown, remaining, Math.max(shown.resetAtMs, nowMs), nowMs));
  }
  if (decision.outcome === 'limited') headers['Retry-After'] = String(retryAfterSeconds(decision.retryAfterMs));
  return headers;
}

function describe(w: WindowState, remaining: number, resetAtMs: number, nowMs: number): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(w.limit),
    'X-RateLimit-Remaining': String(remaining),
    'X-RateLimit-Reset': String(Math.ceil(resetAtMs / 1000)),
    RateLimit: `"${w.name}";r=${remaining};t=${Math.max(0, Math.ceil((resetAtMs - nowMs) / 1000))}`,
  };
}

function clampRemaining(w: WindowState): number {
  return Math.max(0, Math.min(w.remaining, w.limit));
}

/** Whole seconds, at least 1: "Retry-After: 0" invites an immediate retry that would be refused again. */
function retryAfterSeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}
