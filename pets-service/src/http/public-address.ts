import type { Request } from 'express';

/**
 * Where links we hand back point. Never the request's Host or a forwarded host: either can be
 * chosen by a client (`Host: evil.example` would otherwise come back as a link to evil.example),
 * so a link is absolute only on the configured `PUBLIC_BASE_URL`, and relative otherwise.
 */
const PATH_PREFIX = /^(?:\/(?!\.{1,2}(?:\/|$))[A-Za-z0-9._~-]+)*$/;

/**
 * `/v1` behind the gateway, empty on direct calls or when the header is not a plain path. Only
 * authenticated internal callers (the gateway) get this far, and the gateway sets it itself.
 */
export function publicPathPrefix(req: Request): string {
  const prefix = req.headers['x-forwarded-prefix'];
  return typeof prefix === 'string' && PATH_PREFIX.test(prefix) ? prefix : '';
}

/**
 * What a link's path is appended to: `PUBLIC_BASE_URL` (which ends in `/v1`) for a request that came
 * through the gateway when it is set, otherwise the path prefix alone (a relative reference).
 */
export function linkBase(req: Request, publicBaseUrl: string | undefined): string {
  const prefix = publicPathPrefix(req);
  return prefix !== '' && publicBaseUrl !== undefined ? publicBaseUrl : prefix;
}
