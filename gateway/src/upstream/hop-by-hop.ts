import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';

/**
 * Headers that belong to one connection, not to the message (RFC 9110 §7.6.1), and so are never
 * passed from one hop to the next in either direction. `Transfer-Encoding` is framing: each side
 * frames its own message.
 */
const HOP_BY_HOP = ['connection', 'keep-alive', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'proxy-authorization', 'proxy-authenticate', 'proxy-connection'];

/**
 * What the client may not tell the pets-service: who it is (`Authorization` is replaced by the
 * internal token), where it came from (`Forwarded`, `X-Real-IP` and every `X-Forwarded-*` are set
 * by the gateway alone), the portal's session (`Cookie`), and framing the gateway redoes
 * (`Host`, `Content-Length`, `Expect`).
 */
const NOT_FORWARDED_UPSTREAM = new Set([
  ...HOP_BY_HOP,
  'host',
  'content-length',
  'expect',
  'authorization',
  'cookie',
  'forwarded',
  'x-real-ip',
  'x-forwarded-for',
  'x-forwarded-proto',
  'x-forwarded-host',
  'x-forwarded-port',
  'x-forwarded-prefix',
]);

/** What describes the pets-service itself rather than the API, and never reaches a client. */
const NOT_RELAYED_DOWNSTREAM = new Set([...HOP_BY_HOP, 'server', 'x-powered-by', 'set-cookie']);

/** The headers named in `Connection` are hop-by-hop too, whatever they are called. */
function namedInConnection(headers: IncomingHttpHeaders): Set<string> | undefined {
  const connection = headers.connection;
  if (connection === undefined) return undefined;
  const names = new Set<string>();
  for (const name of connection.split(',')) {
    const trimmed = name.trim().toLowerCase();
    if (trimmed) names.add(trimmed);
  }
  return names;
}

/**
 * Whether `Connection` names a header the request relies on end to end: named there, it would be
 * stripped as hop-by-hop (rightly, by the RFC) and never reach the pets-service. `Idempotency-Key`
 * is the one: dropped silently, a retried create would make a second pet.
 */
export function namesEndToEndHeader(headers: IncomingHttpHeaders, name: string): boolean {
  return namedInConnection(headers)?.has(name) ?? false;
}

function filtered(headers: IncomingHttpHeaders, drop: ReadonlySet<string>): OutgoingHttpHeaders {
  const named = namedInConnection(headers);
  const kept: OutgoingHttpHeaders = {};
  for (const name in headers) {
    if (drop.has(name) || named?.has(name)) continue;
    kept[name] = headers[name];
  }
  return kept;
}

/** The client's end-to-end headers, for the request to the pets-service (the gateway adds its own after). */
export function upstreamRequestHeaders(client: IncomingHttpHeaders): IncomingHttpHeaders {
  return filtered(client, NOT_FORWARDED_UPSTREAM) as IncomingHttpHeaders;
}

/** The pets-service's end-to-end headers, for the client's response. */
export function downstreamResponseHeaders(upstream: IncomingHttpHeaders): OutgoingHttpHeaders {
  return filtered(upstream, NOT_RELAYED_DOWNSTREAM);
}
