import { PUBLIC_PATH_PREFIX } from '../../../shared/src/settings';
import type { PetsProxy } from '../upstream/pets-proxy';
import { upstreamRequestHeaders } from '../upstream/hop-by-hop';
import type { RequestHandler } from 'express';
import { routeOf, v1Locals } from './locals';

export interface ProxyOptions {
  petsProxy: PetsProxy;
  /** Whether the client's X-Forwarded-For may be extended (TRUST_PROXY set) or is replaced. */
  trustForwarded: boolean;
  /** Sets the internal token naming the account (the sign-internal-token stage's work). */
  internalAuthorization: (accountId: string) => string;
}

/**
 * The last stage: sends the request to the pets-service on the path the route table rebuilt (never
 * the raw URL), with the body the read-body stage already holds, the client's end-to-end headers,
 * the gateway's own X-Forwarded-* and the internal token in place of the client's key.
 */
export function proxyToPets({ petsProxy, trustForwarded, internalAuthorization }: ProxyOptions): RequestHandler {
  return (req, res, next) => {
    const route = routeOf(req, res);
    const { principal, body } = v1Locals(res);
    if (route.kind !== 'path' || !principal) {
      next(new Error('proxy reached without a matched route and an authenticated principal'));
      return;
    }
    const headers = upstreamRequestHeaders(req.headers);
    const remote = req.socket.remoteAddress ?? '';
    const offered = req.headers['x-forwarded-for'];
    headers['x-forwarded-for'] = trustForwarded && offered ? `${String(offered)}, ${remote}` : remote;
    // From X-Forwarded-Proto only when TRUST_PROXY trusts the sender.
    headers['x-forwarded-proto'] = req.protocol;
    headers['x-forwarded-prefix'] = PUBLIC_PATH_PREFIX;
    headers.authorization = internalAuthorization(principal.accountId);
    if (body) headers['content-length'] = String(body.length);
    // What http-proxy sends is the request as it stands: these headers, this path.
    req.headers = headers;
    req.url = `${route.forwardPath}${searchOf(req.url)}`;
    petsProxy(req, res, next, body);
  };
}

/** The query of a request target with its `?`, or empty; a fragment (which clients should not send) is never forwarded. */
export function searchOf(url: string): string {
  const query = url.indexOf('?');
  if (query < 0) return '';
  const hash = url.indexOf('#');
  if (hash < 0) return url.slice(query);
  return hash < query ? '' : url.slice(query, hash);
}
