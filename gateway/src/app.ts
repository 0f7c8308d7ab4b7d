import express, { type Express, type RequestHandler } from 'express';
import type { Logger } from 'pino';
import { ApiError, errorHandler, notAllowed, notFoundHandler } from '../../shared/src/errors';
import { accessLog } from '../../shared/src/access-log';
import { interfaceDescriptionFor } from '../../shared/src/openapi';
import { continueIfExpected, type Lifecycle } from '../../shared/src/http-server';
import { requestId } from '../../shared/src/request-id';
import type { GatewayConfig } from './config';
import { interactiveDocs } from './docs/interactive-docs';
import type { KeySubject, LimitDecision, Limiter } from './limits/types';
import type { GatewayMetrics } from './metrics';
import { authenticate, type KeyCache } from './pipeline/authenticate';
import { markDeprecated } from './pipeline/deprecation';
import { browserAccess } from './pipeline/cors';
import { operatorStages } from './extensions/operator-middleware';
import { absoluteLinks } from './links/public-links';
import { serveInterfaceDescription } from './pipeline/interface-description';
import { proxyToPets } from './pipeline/proxy';
import { lookUpKey, type KeyLookup } from './pipeline/look-up-key';
import { rateLimit } from './pipeline/rate-limit';
import { readBody } from './pipeline/read-body';
import { requireKey } from './pipeline/require-key';
import { route } from './pipeline/route';
import { internalAuthorization } from './pipeline/sign-internal-token';
import type { PetsProxy } from './upstream/pets-proxy';
import type { LookupGate } from './accounts/lookup-gate';

export interface PublicAppDeps {
  config: Pick<GatewayConfig, 'bodyTimeoutMs' | 'internalJwtSecret' | 'anonPerMinute' | 'anonIpv6PrefixLength' | 'trustProxy' | 'apiEnvironment' | 'publicBaseUrl' | 'corsOrigins'>;
  logger: Logger;
  /** Where the one line per request goes (default: `logger`). */
  accessLogger?: Logger;
  petsProxy: PetsProxy;
  keys: KeyCache & KeyLookup;
  /** When a key the caches do not know may be looked up (`accounts/lookup-gate.ts`). */
  lookups: Pick<LookupGate, 'admission'>;
  limiter: Limiter;
  metrics: GatewayMetrics;
  lifecycle: Lifecycle;
  /** Every rate-limit decision about a key (the ops usage board and keys' last use). */
  onKeyDecision?: (subject: KeySubject, decision: LimitDecision) => void;
  /** The developer portal (`portal/`), mounted at /portal: outside /v1, so its pages never count against an API quota. */
  portal?: RequestHandler;
  /** The operator's own middleware (`GATEWAY_MIDDLEWARE`, docs/extending.md), in order. */
  operatorMiddleware?: readonly RequestHandler[];
}

/**
 * The public app: health, `/docs`, `/portal` and the API under `/v1`, one Express app with one
 * error handler that answers every refusal in the Error shape.
 *
 * `/v1` is an Express router; its middleware, one file each in `pipeline/`, run in this fixed order:
 * request id → [absolute links, with PUBLIC_BASE_URL] → deprecation headers → [browsers, with
 * CORS_ORIGINS: a preflight answered here] → authenticate (from the key caches) → look up a key the
 * caches do not know (when the look-up gate lets it: at once within the client's look-up budget,
 * else in the replica's queue) → rate limit (the account's windows, or the anonymous budget) →
 * [interface description, on its path] → require a key → [the operator's middleware, with
 * GATEWAY_MIDDLEWARE] → route → read body → proxy (with the internal token in place of the key).
 * The bracketed ones are mounted only when configured. What they tell each other is on `res.locals`
 * (`pipeline/locals.ts`). Minted keys cost bounded store work; a valid key is never refused for it.
 * It never listens: main.ts and the tests do.
 */
export function createApp({ config, logger, accessLogger = logger, petsProxy, keys, lookups, limiter, metrics, lifecycle, onKeyDecision, portal, operatorMiddleware = [] }: PublicAppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  // The gateway's own answers are errors and small documents: an ETag (a hash of each body) buys nothing.
  app.set('etag', false);
  // `req.ip` and `req.protocol` read X-Forwarded-For and -Proto only from the proxies TRUST_PROXY names.
  app.set('trust proxy', config.trustProxy);
  // /V1/pets and /v1/PETS are not the API: both are 404, as any other unknown path. Set before
  // the first route: Express reads it when it makes its router.
  app.set('case sensitive routing', true);
  // `req.query` is parsed only when read (a getter): /v1 never reads it (the pets-service checks
  // the query itself), the portal reads a flag or two.
  app.set('query parser', 'simple');
  app.use(requestId);
  // The metrics of a response are taken in the access log's one listener (no layer, listener or closure of their own).
  app.use(accessLog(app, accessLogger, logger, { onResponse: metrics.observeResponse }));

  // /docs and /v1/openapi.json list this deployment first, so "Try it out" calls it.
  const document = interfaceDescriptionFor(config.publicBaseUrl);
  // The API first: its requests are nearly all of the traffic, and pass no other route on the way.
  const limits = { limiter, anonPerMinute: config.anonPerMinute, anonIpv6PrefixLength: config.anonIpv6PrefixLength, onDecision: metrics.recordDecision, onKeyDecision };
  const v1 = express.Router({ caseSensitive: true });
  const links = absoluteLinks(config.publicBaseUrl);
  if (links) v1.use(links);
  v1.use(markDeprecated);
  // After the deprecation headers (a preflight of the deprecated path carries them too), before
  // authentication: a preflight needs no key and costs no quota.
  const browsers = browserAccess(config.corsOrigins);
  if (browsers) v1.use(browsers);
  v1.use(authenticate(keys, config.apiEnvironment));
  v1.use(lookUpKey(keys, lookups, config.anonIpv6PrefixLength));
  v1.use(rateLimit(limits));
  // The interface description is public: rate limited like everything under /v1, but no key needed.
  v1.all('/openapi.json', serveInterfaceDescription(document));
  v1.use(requireKey);
  for (const stage of operatorStages(operatorMiddleware)) v1.use(stage);
  v1.use(route);
  v1.use(readBody({ timeoutMs: config.bodyTimeoutMs }));
  v1.use(proxyToPets({ petsProxy, trustForwarded: config.trustProxy !== false, internalAuthorization: internalAuthorization(config.internalJwtSecret) }));
  app.use('/v1', v1);

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  // Degraded still serves (limits fall back to each replica), so it stays 200 and says so;
  // a draining replica answers 503 so that a balancer stops sending it new work.
  app.get('/readyz', (_req, res) => {
    if (lifecycle.draining) res.status(503).json({ status: 'draining', rateLimiter: limiter.mode });
    else res.json({ status: limiter.degraded ? 'degraded' : 'ready', rateLimiter: limiter.mode });
  });
  app.use('/docs', guardDocs, ...interactiveDocs(document, { title: 'Animal Store API' }));

  // The developer portal: its own pages, sessions, CSRF checks and attempt limits (see portal/).
  // Its forms are read without conditions of their own: a client waiting for 100 Continue gets it at once.
  if (portal) app.use('/portal', sendContinue, portal);

  app.use(notFoundHandler);
  app.use(errorHandler(logger));
  return app;
}

/** Answers `Expect: 100-continue` at once (what Node does when the server leaves it to Node). */
const sendContinue: RequestHandler = (req, res, next) => {
  continueIfExpected(req, res);
  next();
};

/**
 * `/docs` is read-only and its paths are plain file names. swagger-ui-express answers any method
 * and any unknown name with its page, and a dot segment with a bare-text 404: these answer in the
 * Error shape instead (405 with Allow, 404).
 */
const guardDocs: RequestHandler = (req, _res, next) => {
  const path = `/docs${req.path === '/' ? '' : req.path}`;
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    next(notAllowed(req.method, path, 'GET, HEAD'));
  } else if (/(?:^|\/)(?:\.|%2e)/i.test(req.path)) {
    next(new ApiError('not_found', `No resource at ${req.method} ${path}.`));
  } else {
    next();
  }
};
