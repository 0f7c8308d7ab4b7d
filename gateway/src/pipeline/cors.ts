import cors from 'cors';
import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';
import { PreflightLimit, type PreflightPolicy } from '../limits/preflight-limit';

/**
 * What scripts on a listed origin may read of an answer besides the CORS-safelisted fields: the
 * rate-limit fields, Retry-After, the request id, links, deprecation, and whether a create was replayed.
 */
const EXPOSED_HEADERS = [
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'RateLimit',
  'RateLimit-Policy',
  'Retry-After',
  'X-Request-Id',
  'Link',
  'Location',
  'Deprecation',
  'Sunset',
  'Idempotent-Replayed',
];
/** What a page may send: the key, a JSON body, an idempotent create, its own request id. */
const ALLOWED_HEADERS = ['authorization', 'content-type', 'idempotency-key', 'x-request-id'];
/** The methods `/v1` serves. */
const ALLOWED_METHODS = ['GET', 'HEAD', 'POST'];
/** How long a browser may reuse a preflight's answer, in seconds (Chromium caps it at 7200). */
const PREFLIGHT_MAX_AGE_SECONDS = 600;

/**
 * Browsers (`CORS_ORIGINS`, CONTRACT "Browsers (CORS)"), on the `cors` package; the first of the
 * `/v1` stages that can answer, so that a preflight from a listed origin is answered 204 before
 * authentication and rate limiting: it needs no key and costs no quota. Every other answer to a
 * listed origin carries Allow-Origin and Expose-Headers (later stages add their headers beside
 * them). An origin not listed, or no Origin at all, gets no Access-Control-* field; credentials
 * are never allowed. Preflights, free of quota, are counted per address against a limit of their
 * own (`PREFLIGHT_PER_MINUTE`): past it 429 with Retry-After. Undefined when no origin is listed: no stage at all.
 */
export function browserAccess(origins: readonly string[], preflights: PreflightPolicy): RequestHandler | undefined {
  if (origins.length === 0) return undefined;
  const listed = new Set(origins);
  const preflightLimit = new PreflightLimit(preflights);
  const handle = cors({
    origin: (origin, callback) => callback(null, origin !== undefined && listed.has(origin) ? origin : false),
    methods: ALLOWED_METHODS,
    allowedHeaders: ALLOWED_HEADERS,
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: PREFLIGHT_MAX_AGE_SECONDS,
    credentials: false,
    optionsSuccessStatus: 204,
  });
  return (req, res, next) => {
    // The answer depends on Origin for every request, listed or not: a shared cache must not
    // give one origin's answer to another.
    res.setHeader('Vary', 'Origin');
    // `cors` takes every OPTIONS for a preflight; one without Access-Control-Request-Method is an
    // ordinary request (answered by the later stages, 401 or 405), so it gets an actual answer's fields.
    if (req.method !== 'OPTIONS') return handle(req, res, next);
    if (req.headers['access-control-request-method'] === undefined) return handle(asGet(req), res, next);
    preflightLimit.take(req.ip).then((refusal) => (refusal ? next(refusal) : handle(req, res, next)), next);
  };
}

/** The request as `cors` reads it (method and headers), with GET as its method. */
function asGet(req: IncomingMessage): IncomingMessage {
  return Object.create(req, { method: { value: 'GET' } }) as IncomingMessage;
}
