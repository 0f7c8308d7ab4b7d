import express, { Router, type Express, type RequestHandler } from 'express';
import swaggerUi from 'swagger-ui-express';
import type { Logger } from 'pino';
import { errorHandler, methodNotAllowed, notFoundHandler } from '../../shared/src/errors';
import { httpLogger } from '../../shared/src/logger';
import { openApiDocument } from '../../shared/src/openapi';
import type { Lifecycle } from '../../shared/src/http-server';
import { requestId } from '../../shared/src/request-id';
import type { GatewayConfig } from './config';
import type { Limiter } from './limits/types';
import type { GatewayMetrics } from './metrics';
import { authenticate, requireKey, type KeyResolver } from './pipeline/authenticate';
import { markDeprecated } from './pipeline/deprecation';
import { serveInterfaceDescription } from './pipeline/interface-description';
import { proxyToPets } from './pipeline/proxy';
import { rateLimit } from './pipeline/rate-limit';
import { route } from './pipeline/route';
import { signInternalTokenStage } from './pipeline/sign-internal-token';

export interface PublicAppDeps {
  config: Pick<GatewayConfig, 'petsUrl' | 'upstreamTimeoutMs' | 'internalJwtSecret' | 'anonPerMinute' | 'trustProxy'>;
  logger: Logger;
  keys: KeyResolver;
  limiter: Limiter;
  metrics: GatewayMetrics;
  lifecycle: Lifecycle;
  /** The developer portal (`portal/`), mounted at /portal: outside /v1, so its pages never count against an API quota. */
  portal: RequestHandler;
}

/**
 * The public app. Its pipeline is mounted here, in its fixed order, one file per stage:
 * request id → deprecation headers → authenticate → rate limit → [interface description]
 * → require a key → route → sign internal token → proxy.
 * It never listens: main.ts and the tests do.
 */
export function createApp({ config, logger, keys, limiter, metrics, lifecycle, portal }: PublicAppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', config.trustProxy);
  // /V1/pets and /v1/PETS are not the API: both are 404, as any other unknown path.
  app.set('case sensitive routing', true);
  app.use(requestId);
  app.use(httpLogger(logger));
  app.use(metrics.observeRequests);

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  // Degraded still serves (limits fall back to each replica), so it stays 200 and says so;
  // a draining replica answers 503 so that a balancer stops sending it new work.
  app.get('/readyz', (_req, res) => {
    if (lifecycle.draining) res.status(503).json({ status: 'draining', rateLimiter: limiter.mode });
    else res.json({ status: limiter.degraded ? 'degraded' : 'ready', rateLimiter: limiter.mode });
  });
  app.use('/docs', swaggerUi.serve, swaggerUi.setup(openApiDocument, { customSiteTitle: 'Animal Store API' }));

  // The developer portal: its own pages, sessions, CSRF checks and attempt limits (see portal/).
  app.use('/portal', portal);

  const v1 = Router({ caseSensitive: true, strict: false });
  v1.use(markDeprecated);
  v1.use(authenticate(keys));
  v1.use(rateLimit({ limiter, anonPerMinute: config.anonPerMinute, onDecision: metrics.recordDecision }));
  // The interface description is public: rate limited like everything under /v1, but no key needed.
  v1.get('/openapi.json', serveInterfaceDescription);
  v1.all('/openapi.json', methodNotAllowed(['GET', 'HEAD']));
  v1.use(requireKey);
  v1.use(route);
  v1.use(signInternalTokenStage(config.internalJwtSecret));
  v1.use(
    proxyToPets({
      target: config.petsUrl,
      timeoutMs: config.upstreamTimeoutMs,
      trustForwarded: config.trustProxy !== false,
      logger,
      onUpstreamError: metrics.recordUpstreamError,
    }),
  );
  app.use('/v1', v1);

  app.use(notFoundHandler);
  app.use(errorHandler(logger));
  return app;
}
