import express, { type Express } from 'express';
import { errorHandler, notFoundHandler } from '../../shared/src/errors';
import { accessLog } from '../../shared/src/access-log';
import type { Logger } from '../../shared/src/logger';
import type { Lifecycle } from '../../shared/src/http-server';
import { DEFAULT_BODY_TIMEOUT_MS } from '../../shared/src/settings';
import { requestId } from '../../shared/src/request-id';
import { authenticateInternalToken } from './http/authenticate';
import { createCursorCodec } from './http/cursor';
import { databaseUnavailable } from './http/database-unavailable';
import { getPetDeprecationHeaders } from './http/deprecation';
import { petsRoutes } from './http/pets-routes';
import type { PetService } from './pets/pet-service';

export interface AppDeps {
  readonly service: PetService;
  readonly logger: Logger;
  /** Where the one line per request goes (default: `logger`). */
  readonly accessLogger?: Logger;
  /** Verifies internal tokens; the list-cursor key is derived from it as well. */
  readonly internalTokenSecret: string;
  /** `PUBLIC_BASE_URL`: links are absolute on it; undefined, they are relative. */
  readonly publicBaseUrl?: string;
  readonly lifecycle?: Lifecycle;
  /** `BODY_TIMEOUT_MS`: a request body must arrive whole within this, or 408 request_timeout. */
  readonly bodyTimeoutMs?: number;
}

/** The HTTP application, without listening: main.ts and the tests decide where it runs. */
export function createApp({ service, logger, accessLogger = logger, internalTokenSecret, publicBaseUrl, lifecycle = { draining: false }, bodyTimeoutMs = DEFAULT_BODY_TIMEOUT_MS }: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  // No ETag: Express would hash every body for it, and nothing here serves conditional requests.
  app.set('etag', false);

  app.use(requestId);
  app.use(accessLog(app, accessLogger, logger));
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  // A stopping replica says so, so a balancer stops sending it new work while it finishes.
  app.get('/readyz', (_req, res) => {
    res.status(lifecycle.draining ? 503 : 200).json({ status: lifecycle.draining ? 'draining' : 'ready' });
  });
  app.use(getPetDeprecationHeaders);
  app.use(authenticateInternalToken(internalTokenSecret));
  app.use(petsRoutes({ service, cursors: createCursorCodec(internalTokenSecret), publicBaseUrl, bodyTimeoutMs }));
  app.use(notFoundHandler);
  app.use(databaseUnavailable);
  app.use(errorHandler(logger));
  return app;
}
