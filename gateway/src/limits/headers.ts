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
  if (windows.length > 0) headers['RateLimit-Policy'] = policyOf(windows);

  const shown = decision.outcome === 'limited' ? (windows.find((w) => w.name === decision.binding) ?? bindingWindow(windows)) : bindingWindow(windows);

  if (decision.outcome === 'banned') {
    const endMs = Math.max(decision.bannedUntilMs, nowMs);
    if (shown) describe(headers, shown, 0, endMs, nowMs);
    headers['Retry-After'] = String(retryAfterSeconds(endMs - nowMs));
    return headers;
  }

  if (shown) {
    const remaining = decision.outcome === 'limited' ? 0 : clampRemaining(shown);
    describe(headers, shown, remaining, Math.max(shown.resetAtMs, nowMs), nowMs);
  }
  if (decision.outcome === 'limited') headers['Retry-After'] = String(retryAfterSeconds(decision.retryAfterMs));
  return headers;
}

/** A node of the policy cache: one step of (name, limit, length) per window. */
interface PolicyNode {
  value?: string;
  next: Map<string | number, PolicyNode>;
}

/** Nodes kept before the cache starts again: quotas are set by operators, so a few hundred at most in practice. */
const MAX_POLICY_NODES = 10_000;
let policies: PolicyNode = { next: new Map() };
let policyNodes = 0;

/**
 * `RateLimit-Policy` of a set of windows, built once per quota pair (and once for the anonymous
 * window) rather than on every response (issue 29): looked up by the windows' numbers, no string
 * made to look it up.
 */
function policyOf(windows: readonly WindowState[]): string {
  if (policyNodes > MAX_POLICY_NODES) {
    policies = { next: new Map() };
    policyNodes = 0;
  }
  let node = policies;
  for (const w of windows) node = step(step(step(node, w.name), w.limit), w.windowSeconds);
  return (node.value ??= windows.map((w) => `"${w.name}";q=${w.limit};w=${w.windowSeconds}`).join(', '));
}

function step(node: PolicyNode, key: string | number): PolicyNode {
  let next = node.next.get(key);
  if (!next) {
    node.next.set(key, (next = { next: new Map() }));
    policyNodes += 1;
  }
  return next;
}

/** Writes the shown window's headers into `headers` (no object of their own to copy from, issue 29). */
function describe(headers: Record<string, string>, w: WindowState, remaining: number, resetAtMs: number, nowMs: number): void {
  headers['X-RateLimit-Limit'] = String(w.limit);
  headers['X-RateLimit-Remaining'] = String(remaining);
  headers['X-RateLimit-Reset'] = String(Math.ceil(resetAtMs / 1000));
  headers.RateLimit = `"${w.name}";r=${remaining};t=${Math.max(0, Math.ceil((resetAtMs - nowMs) / 1000))}`;
}

function clampRemaining(w: WindowState): number {
  return Math.max(0, Math.min(w.remaining, w.limit));
}

/** Whole seconds, at least 1: "Retry-After: 0" invites an immediate retry that would be refused again. */
function retryAfterSeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}
