import type { EmailVerification } from '../accounts/email-verification';
import express, { type ErrorRequestHandler, type Express, type RequestHandler } from 'express';
import { ApiError, errorHandler, methodNotAllowed, notFoundHandler, serviceUnavailable } from '../../../shared/src/errors';
import { accessLog } from '../../../shared/src/access-log';
import type { Logger } from '../../../shared/src/logger';
import { requestId } from '../../../shared/src/request-id';
import type { AccountService } from '../accounts/account-service';
import { StoreUnavailableError } from '../store-errors';
import { PLAN_NAMES } from '../accounts/types';
import { ACCOUNT_ID_PATTERN } from '../keys/api-key';
import { MAX_BODY_BYTES, jsonBody, optionalJsonBody } from '../../../shared/src/json-body';
import { refuseBodiesOver } from '../../../shared/src/request-body';
import { DEFAULT_BODY_TIMEOUT_MS } from '../../../shared/src/settings';
import type { AuditEntry } from '../audit/audit-log';
import { consoleRoutes } from './console';
import { accountsCursor, auditCursor, keysCursor, parseAccountsCursor, parseAuditCursor, parseKeysCursor } from '../listing-cursors';
import { ListingQuery, nextPageLink } from './query';
import type { OpsReports } from '../accounts/reports';
import { validateAccountPatch, validateKeyRoll, validateNewAccount, validateNewKey, validatePlanNumbers } from '../accounts/schemas';
import { actorOf, adminAuth } from './admin-auth';
import { requireKnownHost } from './host-check';
import { TokenFailures } from './token-failures';
import type { AdminToken } from './tokens';
import { usageChart } from '../usage/usage-chart';
import type { WebhookService } from '../webhooks/webhook-service';
import { mountWebhookRoutes } from './webhook-routes';

export interface AdminAppOptions {
  service: AccountService;
  reports: OpsReports;
  /** Every token the app accepts (`GatewayConfig.adminTokens`: `ADMIN_TOKEN` as `admin`, then `ADMIN_TOKENS`); at least one. */
  adminTokens: readonly AdminToken[];
  logger: Logger;
  /** The admin port's own address (`ADMIN_HOST`, default 127.0.0.1): a name its requests may be sent to. */
  adminHost?: string;
  /** More names requests may be sent to (`ADMIN_ALLOWED_HOSTS`); the loopback names are always allowed. */
  allowedHosts?: readonly string[];
  /** The back-off after wrong tokens (default: TOKEN_FAILURE_POLICY, IPv6 per /64). */
  tokenFailures?: TokenFailures;
  /**
   * Mounts more routes (e.g. `/metrics`) after the ops routes and before the 404 handler.
   * `requireAdmin` is the same bearer check the ops routes use, for routes that want it.
   */
  extraRoutes?: (app: Express, helpers: { requireAdmin: RequestHandler }) => void;
  /** The webhook use cases; without them the webhook routes answer 404. */
  webhooks?: WebhookService;
  /** Whether accounts' emails are verified (in the account view), and ops' way to mark one verified. */
  emailVerification?: EmailVerification;
  /** `BODY_TIMEOUT_MS`: a request body must arrive whole within this, or 408 request_timeout (default 10 s). */
  bodyTimeoutMs?: number;
}

const MAX_SEARCH_LENGTH = 100;

/** `q`: what an operator types into a search box; trimmed, since a search for " acme" means "acme". */
function searchText(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  if (raw.trim() === '') throw new ApiError('invalid_parameter', 'q must not be only white space.');
  if ([...raw].length > MAX_SEARCH_LENGTH) throw new ApiError('invalid_parameter', `q must have at most ${MAX_SEARCH_LENGTH} characters.`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(raw)) throw new ApiError('invalid_parameter', 'q must not contain control characters.');
  return raw.trim();
}

/** An audit entry as the API shows it: its position in the trail is the cursor's business. */
function auditView({ id: _id, ...entry }: AuditEntry): Omit<AuditEntry, 'id'> {
  return entry;
}

/** The store being down is the client's problem only in that it may retry: 503, not 500. */
const storeUnavailable: ErrorRequestHandler = (err, _req, _res, next) => {
  next(err instanceof StoreUnavailableError ? serviceUnavailable('The account store is unavailable; retry shortly.') : err);
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
export function createAdminApp(options: AdminAppOptions): Express {
  const { service, reports, logger, extraRoutes } = options;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  const requireAdmin = adminAuth(options.adminTokens, options.tokenFailures);
  const body = { timeoutMs: options.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS };

  app.use(requestId);
  app.use(accessLog(app, logger));
  // Before anything else answers: a DNS-rebinding page must not even get the console.
  app.use(requireKnownHost({ adminHost: options.adminHost ?? '127.0.0.1', allowedHosts: options.allowedHosts ?? [] }));
  // No admin request carries more than a small JSON body: a larger one declared is refused unread.
  app.use(refuseBodiesOver(MAX_BODY_BYTES));
  // The console's page, script and style need no token: everything they show comes from /admin, which does.
  app.use(consoleRoutes());
  app.use('/admin', (_req, res, next) => {
    // Answers carry account data and freshly minted keys: no cache may keep them.
    res.setHeader('Cache-Control', 'no-store');
    next();
  });
  app.use('/admin', requireAdmin);

  app
    .route('/admin/me')
    .get((_req, res) => {
      res.json({ actor: actorOf(res) });
    })
    .all(methodNotAllowed(['GET']));

  app
    .route('/admin/accounts')
    .get(async (req, res) => {
      const query = new ListingQuery(req, ['limit', 'cursor', 'plan', 'q']);
      const limit = query.limit();
      const plan = query.oneOf('plan', PLAN_NAMES);
      const q = searchText(query.text('q'));
      const after = query.cursor(parseAccountsCursor);
      const page = await service.listAccounts({ limit, ...(after ? { after } : {}), ...(plan ? { plan } : {}), ...(q ? { search: q } : {}) });
      if (page.next) res.setHeader('Link', nextPageLink('/admin/accounts', { limit: query.text('limit'), plan, q }, accountsCursor(page.next)));
      res.json(page.accounts);
    })
    .post(jsonBody(body), async (req, res) => {
      const account = await service.createAccount(validateNewAccount(req.body), actorOf(res));
      res.status(201).location(`/admin/accounts/${account.id}`).json(account);
    })
    .all(methodNotAllowed(['GET', 'POST']));

  app
    .route('/admin/accounts/:id')
    .get(async (req, res) => {
      const account = await service.getAccount(req.params.id);
      res.json(options.emailVerification ? { ...account, ...(await options.emailVerification.viewOf(account)) } : account);
    })
    .patch(jsonBody(body), async (req, res) => {
      res.json(await service.updateAccount(req.params.id, validateAccountPatch(req.body), actorOf(res)));
    })
    .all(methodNotAllowed(['GET', 'PATCH']));

  app
    .route('/admin/accounts/:id/verify')
    .post(optionalJsonBody(body), async (req, res) => {
      if (!options.emailVerification) throw new ApiError('not_found', 'Email verification is not part of this deployment.');
      await options.emailVerification.markVerified(req.params.id, actorOf(res));
      const account = await service.getAccount(req.params.id);
      res.json({ ...account, ...(await options.emailVerification.viewOf(account)) });
    })
    .all(methodNotAllowed(['POST']));

  app
    .route('/admin/accounts/:id/history.svg')
    .get(async (req, res) => {
      // The portal's chart, for the console: one drawing of the same numbers on both.
      const { history } = await service.getAccount(req.params.id);
      res.type('image/svg+xml').send(usageChart(history).text);
    })
    .all(methodNotAllowed(['GET']));

  app
    .route('/admin/accounts/:id/keys')
    .get(async (req, res) => {
      const query = new ListingQuery(req, ['limit', 'cursor']);
      const limit = query.limit();
      const after = query.cursor(parseKeysCursor);
      const page = await service.listKeyPage(req.params.id, { limit, ...(after ? { after } : {}) });
      if (page.next) res.setHeader('Link', nextPageLink(`/admin/accounts/${req.params.id}/keys`, { limit: query.text('limit') }, keysCursor(page.next)));
      res.json(page.keys);
    })
    .post(optionalJsonBody(body), async (req, res) => {
      res.status(201).json(await service.createKey(req.params.id, actorOf(res), validateNewKey(req.body)));
    })
    .all(methodNotAllowed(['GET', 'POST']));

  app
    .route('/admin/keys/:keyId')
    .delete(async (req, res) => {
      await service.revokeKey(req.params.keyId, actorOf(res));
      res.status(204).end();
    })
    .all(methodNotAllowed(['DELETE']));

  app
    .route('/admin/keys/:keyId/roll')
    .post(optionalJsonBody(body), async (req, res) => {
      res.status(201).json(await service.rollKey(req.params.keyId, validateKeyRoll(req.body), actorOf(res)));
    })
    .all(methodNotAllowed(['POST']));

  app
    .route('/admin/keys/:keyId/ban')
    .delete(async (req, res) => {
      await service.liftBan(req.params.keyId, actorOf(res));
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
    .put(knownPlan, jsonBody(body), async (req, res) => {
      res.json(await service.setPlan(req.params.name, validatePlanNumbers(req.body), actorOf(res)));
    })
    .all(methodNotAllowed(['PUT']));

  app
    .route('/admin/usage/top')
    .get(async (req, res) => {
      const query = new ListingQuery(req, ['window', 'limit']);
      const window = query.oneOf('window', ['minute', 'day'] as const) ?? 'minute';
      res.json(await reports.topUsage(window, query.limit()));
    })
    .all(methodNotAllowed(['GET']));

  app
    .route('/admin/usage/refused')
    .get(async (req, res) => {
      const query = new ListingQuery(req, ['limit']);
      res.json(await reports.refusedKeys(query.limit()));
    })
    .all(methodNotAllowed(['GET']));

  app
    .route('/admin/audit')
    .get(async (req, res) => {
      const query = new ListingQuery(req, ['limit', 'cursor', 'account']);
      const limit = query.limit();
      const accountId = query.text('account');
      if (accountId !== undefined && !ACCOUNT_ID_PATTERN.test(accountId)) {
        throw new ApiError('invalid_parameter', `account must be an account id (acct_ and 20 letters or digits), got "${accountId}".`);
      }
      const before = query.cursor(parseAuditCursor);
      const page = await reports.auditTrail({ limit, ...(before ? { before } : {}), ...(accountId ? { accountId } : {}) });
      if (page.next) res.setHeader('Link', nextPageLink('/admin/audit', { limit: query.text('limit'), account: accountId }, auditCursor(page.next)));
      res.json(page.entries.map(auditView));
    })
    .all(methodNotAllowed(['GET']));

  if (options.webhooks) mountWebhookRoutes(app, options.webhooks, body);
  extraRoutes?.(app, { requireAdmin });

  app.use(notFoundHandler);
  app.use(storeUnavailable);
  app.use(errorHandler(logger));
  return app;
}
