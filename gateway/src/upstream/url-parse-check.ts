import { parse } from 'node:url';

/**
 * Takes Node 24's per-call deprecation check off `url.parse`, which http-proxy-middleware (its path
 * filter) and http-proxy (the outgoing path) call on every proxied request.
 *
 * Node 24 warns once about `url.parse()` (DEP0169), but never for calls from `node_modules`: until
 * the warning has been emitted, every call asks whether its caller is inside `node_modules`, which
 * captures a stack trace (3.7 µs per call measured in a shallow stack, against 0.19 µs without the
 * check; the gateway's stack is deeper). The calls of those packages never lead to the warning, so
 * the check runs forever. One call of our own, with deprecation warnings silenced for its duration,
 * settles it: the warning counts as given (and is not printed), and no later call checks again.
 * Nothing else changes: the gateway's own code does not call `url.parse`, and Node 20 has no check.
 */
export function settleUrlParseDeprecation(): void {
  const silenced = process.noDeprecation;
  process.noDeprecation = true;
  try {
    parse('/');
  } finally {
    process.noDeprecation = silenced;
  }
}
