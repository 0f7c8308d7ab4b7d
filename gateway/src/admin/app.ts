import express, { type ErrorRequestHandler, type Express, type RequestHandler } from 'express';
import { ApiError, errorHandler, methodNotAllowed, notFoundHandler } from '../../../shared/src/errors';
import { accessLog } from '../../../shared/src/access-log';
import type { Logger } from '../../../shared/src/logger';
import { requestId } from '../../../shared/src/request-id';
import type { AccountService } from './account-service';
import { StoreUnavailableError } from '../store-errors';
import { PLAN_NAMES } from '../accounts/types';
import { parseAuthorization, sameSecret } from '../keys/api-key';
import { jsonBody } from '../../../shared/src/json-body';
import { validateAccountPatch, validateNewAccount, validatePlanNumbers } from './schemas';

export interface AdminAppOptions {
  service: AccountService;
  adminToken: string;
  logger: Logger;
  /**
   * Mounts more routes (e.g. `/metrics`) after the ops routes and before the 404 handler.
   * `requireAdmin` is the same bearer check the ops routes use, for routes that want it.
   */
  extraRoutes?: (app: Express, helpers: { requireAdmin: RequestHandler }) => void;
}

const REALM = 'Bearer realm="admin"';

/** Compares the presented token with the admin token in constant time (both hashed first, so lengths leak nothing either). */
export function adminAuth(adminToken: string): RequestHandler {
  if (adminToken.length === 0) throw new Error('the admin token must not be empty');
  return (req, _res, next) => {
    const parsed = parseAuthorization(req.headers.authorization);
    if (!parsed.ok) {
      throw new ApiError('unauthorized', 'The admin API requires Authorization: Bearer <ADMIN_TOKEN>.', { 'WWW-Authenticate': REALM });
    }
    if (!sameSecret(parsed.token, adminToken)) {
      throw new ApiError('unauthorized', 'The admin token is not valid.', { 'WWW-Authenticate': `${REALM}, error="invalid_token"` });
    }
    next();
  };
}

/** The store being down is the client's problem only in that it may retry: 503, not 500. */
const storeUnavailable: ErrorRequestHandler = (err, _req, _res, next) => {
  next(err instanceof StoreUnavailableError ? new ApiError('service_unavailable', 'The account store is unavailable; retry shortly.', { 'Retry-After': '1' }) : err);
};

const knownPlan: RequestHandler = (req, _res, next) => {
  const name = String(req.params.name);
  if (!(PLAN_NAMES as readonly string[]).includes(name)) throw new ApiError('not_found', `No plan named "${name}"; plans are ${PLAN_NAMES.join(', ')}.`);
  next();
};

/**
 * The ops API (see the Ops table of the operating contract). Never listens by itself:
 * the caller binds it to the admin address, away from the public port.
 */
export function createAdminApp({ service, adminToken, logger, extraRoutes }: AdminAppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  const requireAdmin = adminAuth(adminToken);

  app.use(requestId);
  app.use(accessLog(logger));
  app.use('/admin', (_req, res, next) => {
    // Answers carry account data and freshly minted keys: no cache may keep them.
    res.setHeader('Cache-Control', 'no-store');
    next();
  });
  app.use('/admin', requireAdmin);

  app
    .route('/admin/accounts')
    .post(jsonBody(), async (req, res) => {
      const account = await service.createAccount(validateNewAccount(req.body));
      res.status(201).location(`/admin/accounts/${account.id}`).json(account);
    })
    .all(methodNotAllowed(['POST']));

  app
    .route('/admin/accounts/:id')
    .get(async (req, res) => {
      res.json(await service.getAccount(req.params.id));
    })
    .patch(jsonBody(), async (req, res) => {
      res.json(await service.updateAccount(req.params.id, validateAccountPatch(req.body)));
    })
    .all(methodNotAllowed(['GET', 'PATCH']));

  app
    .route('/admin/accounts/:id/keys')
    .post(async (req, res) => {
      res.status(201).json(await service.createKey(req.params.id));
    })
    .all(methodNotAllowed(['POST']));

  app
    .route('/admin/keys/:keyId')
    .delete(async (req, res) => {
      await service.revokeKey(req.params.keyId);
      res.status(204).end();
    })
    .all(methodNotAllowed(['DELETE']));

  app
    .route('/admin/keys/:keyId/ban')
    .delete(async (req, res) => {
      await service.liftBan(req.params.keyId);
      res.status(204).end();
    })
    .all(methodNotAllowed(['DELETE']));

  app
    .route('/admin/plans')
    .get(async (_req, res) => {
      res.json(await service.listPlans());
    })
    .all(methodNotAllowed(['GET']));

  app
    .route('/admin/plans/:name')
    .put(knownPlan, jsonBody(), async (req, res) => {
      res.json(await service.setPlan(req.params.name, validatePlanNumbers(req.body)));
    })
    .all(methodNotAllowed(['PUT']));

  extraRoutes?.(app, { requireAdmin });

  app.use(notFoundHandler);
  app.use(storeUnavailable);
  app.use(errorHandler(logger));
  return app;
}
