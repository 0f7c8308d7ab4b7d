import express, { type Express, type RequestHandler, type Router } from 'express';
import type { Logger } from 'pino';
import { ApiError, errorHandler, notAllowed, notFoundHandler } from '../../shared/src/errors';
import { accessLog } from '../../shared/src/access-log';
import { interfaceDescriptionFor } from '../../shared/src/openapi';
import type { Lifecycle } from '../../shared/src/http-server';
import { refuseBodiesOver } from '../../shared/src/request-body';
import { requestId } from '../../shared/src/request-id';
import { inOrder } from '../../shared/src/in-order';
import type { GatewayConfig } from './config';
import { interactiveDocs } from './docs/interactive-docs';
import type { KeySubject, LimitDecision, Limiter } from './limits/types';
import type { GatewayMetrics } from './metrics';
import type { KeyResolver } from './pipeline/identify';
import { v1Pipeline, v1Stages } from './pipeline/stages';
import type { PetsProxy } from './upstream/pets-proxy';
import type { LookupGate } from './accounts/lookup-gate';

export interface PublicAppDeps {
  config: Pick<GatewayConfig, 'bodyTimeoutMs' | 'internalJwtSecret' | 'anonPerMinute' | 'anonIpv6PrefixLength' | 'trustProxy' | 'apiEnvironment' | 'publicBaseUrl' | 'corsOrigins' | 'preflightPerMinute'>;
  logger: Logger;
  /** Where the one line per request goes (default: `logger`). */
  accessLogger?: Logger;
  petsProxy: PetsProxy;
  keys: KeyResolver;
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
 * The public app: health, `/docs`, `/portal` and the API under `/v1`, one Express app that ends in
 * one error handler answering every refusal in the Error shape (the portal renders its own refusals
 * as pages before it: `portal/routes.ts`).
 *
 * `/v1` is one middleware of the app (`v1Pipeline`); its stages, one file each in `pipeline/` (or
 * `links/`, `extensions/`), run in the order of the list in `pipeline/stages.ts`, and tell each
 * other what they learn on `res.locals` (`pipeline/locals.ts`). Minted keys cost bounded store
 * work; a valid key is never refused for it.
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
  // One layer for both (`inOrder`): a layer each cost every request a step of the router (issue 29).
  // The metrics of a response are taken in the access log's one listener (no layer, listener or closure of their own).
  app.use(inOrder([requestId, accessLog(app, accessLogger, logger, { onResponse: metrics.observeResponse })]));

  // /docs and /v1/openapi.json list this deployment first, so "Try it out" calls it.
  const document = interfaceDescriptionFor(config.publicBaseUrl);
  // The API first: its requests are nearly all of the traffic, and pass no other route on the way.
  const limits = { limiter, anonPerMinute: config.anonPerMinute, anonIpv6PrefixLength: config.anonIpv6PrefixLength, onDecision: metrics.recordDecision, onKeyDecision };
  // A refusal (401, 429…) is answered by the app's one error handler from this layer, not carried
  // past the layers below on its way there (issue 29).
  const answerError = errorHandler(logger);
  app.use('/v1', v1Pipeline(v1Stages({ config, keys, lookups, limits, document, petsProxy, operatorMiddleware }), answerError));

  // Everything else is one layer of the app: a refusal from /v1 passes it on its way to the error
  // handler in one step, not one per route and per handler of /docs and /portal (issue 29: the 429
  // path walked every one of them).
  app.use(otherRoutes({ lifecycle, limiter, document, portal }));
  app.use(answerError);
  return app;
}

/** Health, the docs, the portal, and the 404 for every path nothing answers. */
function otherRoutes({ lifecycle, limiter, document, portal }: Pick<PublicAppDeps, 'lifecycle' | 'limiter' | 'portal'> & { document: ReturnType<typeof interfaceDescriptionFor> }): Router {
  const routes = express.Router({ caseSensitive: true });
  // Health and the docs take no body: one announced is refused at once, never read.
  const noBody = refuseBodiesOver(0);
  routes.get('/healthz', noBody, (_req, res) => {
    res.json({ status: 'ok' });
  });
  // Degraded still serves (limits fall back to each replica), so it stays 200 and says so;
  // a draining replica answers 503 so that a balancer stops sending it new work.
  routes.get('/readyz', noBody, (_req, res) => {
    if (lifecycle.draining) res.status(503).json({ status: 'draining', rateLimiter: limiter.mode });
    else res.json({ status: limiter.degraded ? 'degraded' : 'ready', rateLimiter: limiter.mode });
  });
  routes.use('/docs', guardDocs, noBody, ...interactiveDocs(document, { title: 'Animal Store API' }));

  // The developer portal: its own pages, sessions, CSRF checks and attempt limits (see portal/).
  if (portal) routes.use('/portal', portal);

  routes.use(notFoundHandler);
  return routes;
}

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
