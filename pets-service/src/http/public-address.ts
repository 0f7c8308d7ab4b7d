import type { Request } from 'express';

/**
 * Where the client reached us, for links we hand back. Only authenticated internal callers
 * (the gateway) get this far, so their X-Forwarded-* headers are believed, but each value is
 * checked against a strict shape first: a header must never be able to inject into a Link.
 */
const PATH_PREFIX = /^(?:\/(?!\.{1,2}(?:\/|$))[A-Za-z0-9._~-]+)*$/;
const HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?$/;
const PROTOCOLS = new Set(['http', 'https']);

/** A proxy chain may append: the first value is the one the client used. */
function firstForwarded(req: Request, name: string): string | undefined {
  const value = req.headers[name];
  const first = (Array.isArray(value) ? value[0] : value)?.split(',')[0]?.trim();
  return first === '' ? undefined : first;
}

/** `/v1` behind the gateway, empty on direct calls or when the header is not a plain path. */
export function publicPathPrefix(req: Request): string {
  const prefix = req.headers['x-forwarded-prefix'];
  return typeof prefix === 'string' && PATH_PREFIX.test(prefix) ? prefix : '';
}

/** `scheme://host` the client used, or undefined when no trustworthy host is known (use a relative link then). */
export function publicOrigin(req: Request): string | undefined {
  const forwardedProto = firstForwarded(req, 'x-forwarded-proto')?.toLowerCase();
  const protocol = forwardedProto && PROTOCOLS.has(forwardedProto) ? forwardedProto : req.protocol;
  // Behind a proxy (the header is present, even empty), our own Host is the proxy's view of us,
  // never the client's: without a usable forwarded host the link stays relative.
  const candidate = 'x-forwarded-host' in req.headers ? firstForwarded(req, 'x-forwarded-host') : req.headers.host;
  return candidate && HOST.test(candidate) ? `${protocol}://${candidate}` : undefined;
}
