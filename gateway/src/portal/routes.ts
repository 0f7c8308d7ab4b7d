import { Router, type ErrorRequestHandler, type Request, type RequestHandler, type Response } from 'express';
import { ApiError, ErrorAnswer, closeIfBodyUnread, notAllowed } from '../../../shared/src/errors';
import type { ApiEnvironment } from '../../../shared/src/settings';
import type { KeyPosition } from '../accounts/account-views';
import { sameSecret } from '../keys/api-key';
import type { PortalAssets } from './assets';
import { clearSessionCookie, portalCookies, readCookie, setDeviceCookie, setFormTokenCookie, setSessionCookie } from './cookies';
import type { Html } from './html';
import { dashboardPage, type DashboardView } from './dashboard-page';
import { revokePage, rollPage } from './key-pages';
import { field, formReader, gracePeriodOf, keysPageOf, newKeyForm, requireForm } from './forms';
import { refusalOf, setHeadersOf, shownOnDashboard, titleFor } from './refusals';
import { logInPage, messagePage, signUpPage, type PageContext } from './pages';
import { mountEmailRoutes } from './email-routes';
import { pageMethodNotAllowed } from './page-methods';
import type { PortalService } from './portal-service';
import { newSecretToken, type ActiveSession } from './sessions';
import type { Credentials, StartedSession } from './sign-in';
import { securityHeaders, sentFromPortal } from './web-security';
import type { WebhookService } from '../webhooks/webhook-service';
import { mountWebhookPages } from './webhook-routes';

export interface PortalRouterDeps {
  service: PortalService;
  assets: PortalAssets;
  environment: ApiEnvironment;
  /** PUBLIC_BASE_URL: the API's address in the `curl` line, the portal's origin, and whether cookies are Secure. */
  publicBaseUrl: string | undefined;
  /** `BODY_TIMEOUT_MS`: a form must arrive whole within this, or 408 request_timeout. */
  bodyTimeoutMs: number;
  /** The webhook use cases: the "Webhooks" pages (`webhook-routes.ts`); absent, there are none. */
  webhooks?: WebhookService;
}

interface PortalLocals {
  session: ActiveSession | null;
  sessionToken: string | undefined;
}

const FORM_TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;
const REVOKED_NOTICE = /^key_[0-9A-Za-z]{20}$/;

/**
 * The developer portal's routes, mounted at /portal on the public port. Pages are HTML; the one
 * JSON endpoint (`/portal/usage`, polled by the page) answers errors in the Error shape.
 * Every POST must come from a portal page (Origin/Referer) and carry a CSRF token: the session's
 * once logged in, the form cookie's before. Every check that needs no form (origin, session, the
 * form cookie) runs before the form is read: a request it refuses is answered at once and its body
 * never read. Refusals are answers of the one catalogue (`ApiError`), rendered as pages.
 */
export function createPortalRouter({ service, assets, environment, publicBaseUrl, bodyTimeoutMs, webhooks }: PortalRouterDeps): Router {
  const router = Router({ caseSensitive: true, strict: false });
  const cookies = portalCookies(publicBaseUrl);
  const publicOrigin = publicBaseUrl === undefined ? undefined : new URL(publicBaseUrl).origin;

  const locals = (res: Response) => res.locals as PortalLocals;
  const context = (res: Response, email?: string | null): PageContext => {
    const session = locals(res).session;
    return { environment, assetVersion: assets.version, signedIn: session ? { csrfToken: session.csrfToken, email } : undefined };
  };
  const send = (res: Response, status: number, page: Html) => {
    res.status(status).type('html').send(page.text);
  };
  const ip = (req: Request) => req.ip ?? req.socket.remoteAddress ?? 'unknown';
  const apiBase = (req: Request) => publicBaseUrl ?? `${req.protocol}://${req.get('host') ?? 'localhost'}/v1`;

  /** The form token of this browser before log-in, made and set when it has none. */
  const formToken = (req: Request, res: Response): string => {
    const existing = readCookie(req, cookies.formToken);
    if (existing !== undefined && FORM_TOKEN_SHAPE.test(existing)) return existing;
    const token = newSecretToken();
    setFormTokenCookie(res, cookies, token);
    return token;
  };

  // ── Middleware ──────────────────────────────────────────────────────────
  router.use(securityHeaders);
  router.get('/assets/:name', assets.serve);
  router.use(async (req, res, next) => {
    // Pages and actions, not assets, count against the per-address portal limit.
    await service.countRequest(ip(req));
    res.setHeader('Cache-Control', 'no-store');
    const token = readCookie(req, cookies.session);
    Object.assign(res.locals, { sessionToken: token, session: await service.resume(token) } satisfies PortalLocals);
    next();
  });

  const fromPortal: RequestHandler = (req, _res, next) => {
    if (!sentFromPortal(req, publicOrigin)) throw new ApiError('forbidden', 'This request did not come from a page of the portal, so it was refused (cross-site request protection). Open the portal and try again.');
    next();
  };
  const readForm = formReader(bodyTimeoutMs);
  /** Before log-in, the form's token is checked against the form cookie: a browser without one is refused before its form is read. */
  const hasFormCookie: RequestHandler = (req, _res, next) => {
    if (readCookie(req, cookies.formToken) === undefined) throw expiredForm();
    next();
  };
  const checkFormToken: RequestHandler = (req, _res, next) => {
    const sent = field(req, '_csrf');
    if (sent === '' || !sameSecret(readCookie(req, cookies.formToken)!, sent)) throw expiredForm();
    next();
  };
  const requireSession: RequestHandler = (_req, res, next) => {
    if (!locals(res).session) throw new ApiError('unauthorized', 'Your session has ended: log in again.');
    next();
  };
  const checkSessionToken: RequestHandler = (req, res, next) => {
    if (!sameSecret(locals(res).session!.csrfToken, field(req, '_csrf'))) throw expiredForm();
    next();
  };
  /** A form post: the checks that need no form (origin, media type, a session or form cookie), then the form, then its token. */
  const formPost = (before: RequestHandler, tokenCheck: RequestHandler, ...handlers: RequestHandler[]) => [fromPortal, requireForm, before, readForm, tokenCheck, ...handlers];
  const post = (...handlers: RequestHandler[]) => formPost(hasFormCookie, checkFormToken, ...handlers);
  const sessionPost = (...handlers: RequestHandler[]) => formPost(requireSession, checkSessionToken, ...handlers);

  const renderDashboard = async (res: Response, status: number, view: Omit<DashboardView, 'dashboard' | 'csrfToken'>, keysAfter?: KeyPosition) => {
    const session = locals(res).session!;
    const dashboard = await service.dashboard(session.accountId, keysAfter);
    send(res, status, dashboardPage(context(res, dashboard.account.email), { ...view, dashboard, csrfToken: session.csrfToken }));
  };
  const renderLogIn = (req: Request, res: Response, status: number, form: { email?: string; error?: string; notice?: string } = {}) =>
    send(res, status, logInPage(context(res), { ...form, csrfToken: formToken(req, res), signUpOpen: service.signUpOpen }));
  const renderSignUp = (req: Request, res: Response, status: number, form: { email?: string; error?: string; notice?: string } = {}) =>
    send(res, status, signUpPage(context(res), { ...form, csrfToken: formToken(req, res), signUpOpen: service.signUpOpen }));

  /** A refusal of a log-in or sign-up goes back to its form, with the message and the email typed. */
  const onCredentialsRefused = (req: Request, res: Response, error: unknown, render: typeof renderLogIn) => {
    if (!(error instanceof ErrorAnswer)) throw error;
    setHeadersOf(res, error);
    const typed: unknown = (req.body as Record<string, unknown> | undefined)?.email;
    render(req, res, error.status, { email: typeof typed === 'string' ? typed.slice(0, 300) : undefined, error: error.message });
  };
  const startSession = async (res: Response, token: string) => {
    // A new token at every log-in: whatever session the browser had before (or was given) ends here.
    await service.logOut(locals(res).sessionToken);
    setSessionCookie(res, cookies, token);
  };

  // ── Routes ─────────────────────────────────────────────────────────────
  router
    .route('/')
    .get(async (req, res) => {
      if (!locals(res).session) return renderLogIn(req, res, 200, { notice: noticeFor(req) });
      await renderDashboard(res, 200, { notice: noticeFor(req), welcome: req.query.welcome === '1' }, keysPageOf(req));
    })
    .all(pageMethodNotAllowed(['GET', 'HEAD']));

  /** Log-in and sign-up: the form, and its post, which starts a session and lands on `landing`. */
  const credentialsRoute = (path: string, render: typeof renderLogIn, act: (credentials: Credentials) => Promise<StartedSession>, landing: string, notice?: (req: Request) => string | undefined) =>
    router
      .route(path)
      .get((req, res) => {
        if (locals(res).session) return res.redirect(303, '/portal');
        render(req, res, 200, { notice: notice?.(req) });
      })
      .post(
        ...post(async (req, res) => {
          try {
            const { token, device } = await act({ email: field(req, 'email'), password: field(req, 'password'), ip: ip(req), device: readCookie(req, cookies.device) });
            await startSession(res, token);
            setDeviceCookie(res, cookies, device);
            res.redirect(303, landing);
          } catch (error) {
            onCredentialsRefused(req, res, error, render);
          }
        }),
      )
      .all(pageMethodNotAllowed(['GET', 'HEAD', 'POST']));
  credentialsRoute('/login', renderLogIn, (credentials) => service.logIn(credentials), '/portal', (req) => (req.query.bye === '1' ? 'You have logged out.' : noticeFor(req)));
  credentialsRoute('/signup', renderSignUp, (credentials) => service.signUp(credentials), '/portal?welcome=1');

  router
    .route('/logout')
    .post(
      ...sessionPost(async (_req, res) => {
        await service.logOut(locals(res).sessionToken);
        clearSessionCookie(res, cookies);
        res.redirect(303, '/portal/login?bye=1');
      }),
    )
    .all(pageMethodNotAllowed(['POST']));

  router
    .route('/keys')
    .post(
      ...sessionPost(async (req, res) => {
        const accountId = locals(res).session!.accountId;
        try {
          const created = await service.createKey(accountId, newKeyForm(req));
          await renderDashboard(res, 201, { newKey: { id: created.id, key: created.key, apiBase: apiBase(req) } });
        } catch (error) {
          if (!shownOnDashboard(error)) throw error;
          setHeadersOf(res, error);
          await renderDashboard(res, error.status, { error: error.message });
        }
      }),
    )
    .all(pageMethodNotAllowed(['POST']));

  /** The page that asks before a change to one of the account's own keys (revoke, roll). */
  const keyPage = (page: typeof revokePage): RequestHandler => async (req, res) => {
    const session = locals(res).session!;
    const key = await service.ownKey(session.accountId, String(req.params.keyId));
    send(res, 200, page(context(res), key, session.csrfToken));
  };

  router
    .route('/keys/:keyId/revoke')
    .get(requireSession, keyPage(revokePage))
    .post(
      ...sessionPost(async (req, res) => {
        const keyId = String(req.params.keyId);
        await service.revokeKey(locals(res).session!.accountId, keyId);
        res.redirect(303, `/portal?revoked=${keyId}`);
      }),
    )
    .all(pageMethodNotAllowed(['GET', 'HEAD', 'POST']));

  router
    .route('/keys/:keyId/roll')
    .get(requireSession, keyPage(rollPage))
    .post(
      ...sessionPost(async (req, res) => {
        try {
          const rolled = await service.rollKey(locals(res).session!.accountId, String(req.params.keyId), gracePeriodOf(req));
          await renderDashboard(res, 201, { newKey: { id: rolled.id, key: rolled.key, apiBase: apiBase(req), replaces: rolled.replaces } });
        } catch (error) {
          // Another account's key, or none: the page of an unknown key, as for revoking it.
          if (!shownOnDashboard(error) || error.status === 404) throw error;
          setHeadersOf(res, error);
          await renderDashboard(res, error.status, { error: error.message });
        }
      }),
    )
    .all(pageMethodNotAllowed(['GET', 'HEAD', 'POST']));

  mountEmailRoutes(router, { service, context, send, formToken, ip, post, sessionPost, clearSession: (res) => clearSessionCookie(res, cookies), session: (res) => locals(res).session! });

  router
    .route('/usage')
    .get(async (_req, res) => {
      const session = locals(res).session;
      if (!session) throw new ApiError('unauthorized', 'This endpoint needs a portal session: log in at /portal first.');
      res.json(await service.usage(session.accountId));
    })
    .all((req) => {
      throw notAllowed(req.method, '/portal/usage', 'GET, HEAD');
    });

  if (webhooks) {
    mountWebhookPages(router, { webhooks, requireSession, sessionPost, session: (res) => locals(res).session!, context: (res) => context(res), send, pageMethodNotAllowed });
  }

  router.use((req) => {
    throw new ApiError('not_found', `There is no portal page at ${req.originalUrl.split('?')[0]}.`);
  });

  // ── Errors ─────────────────────────────────────────────────────────────
  const onError: ErrorRequestHandler = (error, req, res, next) => {
    if (res.headersSent) return next(error);
    const refusal = refusalOf(error);
    if (!refusal) return next(error);
    // The JSON endpoint's refusals go to the public port's one error handler, in the Error shape.
    if (isUsageApi(req)) return next(refusal);
    // A form refused before it was read (too large, a limit) is never read: the connection closes.
    closeIfBodyUnread(req, res);
    setHeadersOf(res, refusal);
    if (refusal.status === 401) {
      // The session ended: the log-in form is the way on.
      locals(res).session = null;
      return renderLogIn(req, res, 401, { error: refusal.message });
    }
    send(res, refusal.status, messagePage(context(res), titleFor(refusal.status), refusal.message));
  };
  router.use(onError);
  // Anything else is a bug: logged by the shared handler and answered 500, still without internals.
  router.use(((error, req, res, next) => {
    if (res.headersSent || isUsageApi(req)) return next(error);
    (req as Request & { log?: { error(o: object, m: string): void } }).log?.error({ err: error }, 'portal failed');
    send(res, 500, messagePage(context(res), 'Something went wrong', 'The portal failed to handle this request. Please try again in a moment.'));
  }) as ErrorRequestHandler);
  return router;
}

function expiredForm(): ApiError {
  return new ApiError('forbidden', 'This form has expired or did not come from the portal, so it was refused (cross-site request protection). Reload the page and try again.');
}

const NOTICES: Record<string, Record<string, string>> = {
  verified: { '1': 'Your email address is confirmed.' },
  resent: { '1': 'A new confirmation link is on its way to your email address; earlier links no longer work.' },
  saved: { emails: 'Your email settings are saved.' },
  reset: { '1': 'Your new password is set and every earlier session is logged out: log in with it.' },
};

function noticeFor(req: Request): string | undefined {
  for (const [name, notices] of Object.entries(NOTICES)) {
    const value = req.query[name];
    if (typeof value === 'string' && notices[value]) return notices[value];
  }
  const revoked = req.query.revoked;
  if (typeof revoked === 'string' && REVOKED_NOTICE.test(revoked)) return `Key ${revoked} is revoked: requests made with it are refused.`;
  return undefined;
}



/** `/portal/usage` (with or without a trailing slash, as the router matches it) is JSON, not a page: its errors are too. */
function isUsageApi(req: Request): boolean {
  return req.path === '/usage' || req.path === '/usage/';
}
