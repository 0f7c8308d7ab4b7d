import type { Request, RequestHandler, Response, Router } from 'express';
import type { WebhookService } from '../webhooks/webhook-service';
import { field } from './forms';
import type { Html } from './html';
import type { PageContext } from './pages';
import { portalActor } from './portal-keys';
import { shownOnDashboard } from './refusals';
import type { ActiveSession } from './sessions';
import { deliveriesPage, webhooksPage, type WebhooksView } from './webhook-pages';

/** What the portal's router lends the webhook pages: its session checks and how it renders. */
export interface WebhookPageDeps {
  webhooks: WebhookService;
  requireSession: RequestHandler;
  /** A POST from a portal page with the session's CSRF token (the form read after both checks). */
  sessionPost(...handlers: RequestHandler[]): RequestHandler[];
  session(res: Response): ActiveSession;
  context(res: Response): PageContext;
  send(res: Response, status: number, page: Html): void;
  pageMethodNotAllowed(allowed: readonly string[]): RequestHandler;
}

const DELIVERIES_SHOWN = 50;
const WEBHOOK_NOTICE = /^wh_[0-9A-Za-z]{20}$/;

/** The "Webhooks" pages under /portal/webhooks: add (the secret shown once), list, delete, deliveries, send a test event. */
export function mountWebhookPages(router: Router, deps: WebhookPageDeps): void {
  const { webhooks, requireSession, sessionPost, session, context, send, pageMethodNotAllowed } = deps;
  const caller = (res: Response) => ({ actor: portalActor(session(res).accountId), ownAccountId: session(res).accountId });
  const render = async (res: Response, status: number, view: Omit<WebhooksView, 'endpoints' | 'csrfToken'>) => {
    const endpoints = await webhooks.listEndpoints(session(res).accountId);
    send(res, status, webhooksPage(context(res), { ...view, endpoints, csrfToken: session(res).csrfToken }));
  };

  router
    .route('/webhooks')
    .get(requireSession, async (req, res) => {
      const deleted = req.query.deleted;
      await render(res, 200, { notice: typeof deleted === 'string' && WEBHOOK_NOTICE.test(deleted) ? `Endpoint ${deleted} deleted: it receives nothing more.` : undefined });
    })
    .post(
      ...sessionPost(async (req: Request, res: Response) => {
        const url = field(req, 'url').trim();
        try {
          const added = await webhooks.addEndpoint(session(res).accountId, { url }, caller(res));
          await render(res, 201, { added });
        } catch (error) {
          // A URL or list refused is shown on the page, with what was typed; anything else on a page of its own.
          if (!shownOnDashboard(error) || error.status !== 400) throw error;
          await render(res, 400, { error: error.message, typedUrl: url.slice(0, 2_048) });
        }
      }),
    )
    .all(pageMethodNotAllowed(['GET', 'HEAD', 'POST']));

  router
    .route('/webhooks/:webhookId/delete')
    .post(
      ...sessionPost(async (req, res) => {
        const webhookId = String(req.params.webhookId);
        await webhooks.removeEndpoint(webhookId, caller(res));
        res.redirect(303, `/portal/webhooks?deleted=${webhookId}`);
      }),
    )
    .all(pageMethodNotAllowed(['POST']));

  router
    .route('/webhooks/:webhookId/test')
    .post(
      ...sessionPost(async (req, res) => {
        const webhookId = String(req.params.webhookId);
        await webhooks.sendTest(webhookId, caller(res));
        res.redirect(303, `/portal/webhooks/${webhookId}/deliveries?test=1`);
      }),
    )
    .all(pageMethodNotAllowed(['POST']));

  router
    .route('/webhooks/:webhookId/deliveries')
    .get(requireSession, async (req, res) => {
      const webhookId = String(req.params.webhookId);
      const page = await webhooks.listDeliveries(webhookId, { limit: DELIVERIES_SHOWN }, caller(res));
      send(res, 200, deliveriesPage(context(res), { id: webhookId }, page.deliveries, req.query.test === '1' ? 'A webhook.test event was queued for this endpoint.' : undefined));
    })
    .all(pageMethodNotAllowed(['GET', 'HEAD']));
}
