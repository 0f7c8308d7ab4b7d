import type { Request, RequestHandler, Response, Router } from 'express';
import { forgotPage, resetPage, unsubscribePage, verifyPage } from './email-pages';
import { field } from './forms';
import type { Html } from './html';
import type { PageContext } from './pages';
import { pageMethodNotAllowed } from './page-methods';
import { ApiError, ErrorAnswer } from '../../../shared/src/errors';
import { setHeadersOf } from './refusals';
import type { PortalService } from './portal-service';
import type { ActiveSession } from './sessions';

/** What the portal router lends its email routes: page rendering, the form token and the form pipelines (origin, form, CSRF). */
export interface EmailRouteKit {
  service: PortalService;
  context: (res: Response) => PageContext;
  send: (res: Response, status: number, page: Html) => void;
  formToken: (req: Request, res: Response) => string;
  ip: (req: Request) => string;
  post: (...handlers: RequestHandler[]) => RequestHandler[];
  sessionPost: (...handlers: RequestHandler[]) => RequestHandler[];
  clearSession: (res: Response) => void;
  session: (res: Response) => ActiveSession;
}

/** Verification, password reset, the email settings and the quota emails' one-click link, under /portal. */
export function mountEmailRoutes(router: Router, { service, context, send, formToken, ip, post, sessionPost, clearSession, session }: EmailRouteKit): void {
  const emails = service.emails;
  const linkToken = (req: Request) => (typeof req.query.token === 'string' ? req.query.token.slice(0, 200) : '');
  /** A refusal of an email form goes back to its page with the message; anything else to the error handler. */
  const refusedTo = (res: Response, error: unknown, render: (message: string) => void) => {
    if (!(error instanceof ErrorAnswer) || error.status >= 500) throw error;
    setHeadersOf(res, error);
    res.status(error.status);
    render(error.message);
  };

  router
    .route('/forgot')
    .get((req, res) => send(res, 200, forgotPage(context(res), { csrfToken: formToken(req, res) })))
    .post(
      ...post(async (req, res) => {
        const email = field(req, 'email').slice(0, 300);
        try {
          await emails.forgotPassword(email, service.addressOf(ip(req)));
          const notice = `If ${email} has an account, a link to choose a new password is on its way there. It works for 1 hour; only the newest link works.`;
          send(res, 200, forgotPage(context(res), { csrfToken: formToken(req, res), notice }));
        } catch (error) {
          refusedTo(res, error, (message) => send(res, res.statusCode, forgotPage(context(res), { csrfToken: formToken(req, res), email, error: message })));
        }
      }),
    )
    .all(pageMethodNotAllowed(['GET', 'HEAD', 'POST']));

  /** A page an emailed link opens: its form carries the link's token; posting it uses the link up (`act`), then goes to `landing`. */
  const linkRoute = (path: string, page: typeof resetPage, act: (token: string, req: Request, res: Response) => Promise<void>, landing: string) =>
    router
      .route(path)
      .get((req, res) => send(res, 200, page(context(res), { csrfToken: formToken(req, res), token: linkToken(req) })))
      .post(
        ...post(async (req, res) => {
          const token = field(req, 'token');
          try {
            await act(token, req, res);
            res.redirect(303, landing);
          } catch (error) {
            refusedTo(res, error, (message) => send(res, res.statusCode, page(context(res), { csrfToken: formToken(req, res), token, error: message })));
          }
        }),
      )
      .all(pageMethodNotAllowed(['GET', 'HEAD', 'POST']));
  linkRoute(
    '/reset',
    resetPage,
    async (token, req, res) => {
      await emails.resetPassword(token, field(req, 'password'));
      clearSession(res);
    },
    '/portal/login?reset=1',
  );
  linkRoute('/verify', verifyPage, async (token) => void (await emails.verify(token)), '/portal?verified=1');

  router
    .route('/verify/resend')
    .post(
      ...sessionPost(async (_req, res) => {
        // A dashboard left open while the link was followed elsewhere: say so rather than that a link was sent.
        const sent = await emails.resendVerification(session(res).accountId);
        res.redirect(303, sent ? '/portal?resent=1' : '/portal?verified=1');
      }),
    )
    .all(pageMethodNotAllowed(['POST']));

  router
    .route('/email-settings')
    .post(
      ...sessionPost(async (req, res) => {
        await emails.setQuotaEmails(session(res).accountId, field(req, 'quotaEmails') === 'on');
        res.redirect(303, '/portal?saved=emails');
      }),
    )
    .all(pageMethodNotAllowed(['POST']));

  // The signed link is the authority here, not a session: a mail client's one-click POST (RFC 8058)
  // carries no cookie and no Origin, and its body says nothing more, so it is not read.
  const unsubscribeLink = (req: Request) => ({ account: typeof req.query.account === 'string' ? req.query.account : '', token: linkToken(req) });
  router
    .route('/unsubscribe')
    .get((req, res) => {
      const { account, token } = unsubscribeLink(req);
      if (!emails.isUnsubscribeLink(account, token)) throw new ApiError('invalid_parameter', 'This unsubscribe link is not valid: turn quota emails off in the portal, under "Emails".');
      send(res, 200, unsubscribePage(context(res), `/portal/unsubscribe?${new URLSearchParams({ account, token }).toString()}`, false));
    })
    .post(async (req, res) => {
      const { account, token } = unsubscribeLink(req);
      if (!(await emails.unsubscribeByLink(account, token))) throw new ApiError('invalid_parameter', 'This unsubscribe link is not valid: turn quota emails off in the portal, under "Emails".');
      send(res, 200, unsubscribePage(context(res), '', true));
    })
    .all(pageMethodNotAllowed(['GET', 'HEAD', 'POST']));
}
