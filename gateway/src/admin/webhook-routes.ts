import type { Express } from 'express';
import { methodNotAllowed } from '../../../shared/src/errors';
import { jsonBody, type JsonBodyOptions } from '../../../shared/src/json-body';
import type { WebhookService } from '../webhooks/webhook-service';
import { actorOf } from './admin-auth';
import { deliveriesCursor, parseDeliveriesCursor } from '../listing-cursors';
import { ListingQuery, nextPageLink } from './query';

/** The ops API's webhook routes (CONTRACT.md "Webhooks"), mounted by `createAdminApp` behind its token check. */
export function mountWebhookRoutes(app: Express, webhooks: WebhookService, body: JsonBodyOptions): void {
  app
    .route('/admin/accounts/:id/webhooks')
    .get(async (req, res) => {
      new ListingQuery(req, []); // the whole list (at most 10)
      res.json(await webhooks.listEndpoints(req.params.id));
    })
    .post(jsonBody(body), async (req, res) => {
      const created = await webhooks.addEndpoint(req.params.id, req.body, { actor: actorOf(res) });
      res.status(201).location(`/admin/webhooks/${created.id}`).json(created);
    })
    .all(methodNotAllowed(['GET', 'POST']));

  app
    .route('/admin/webhooks/:webhookId')
    .delete(async (req, res) => {
      await webhooks.removeEndpoint(req.params.webhookId, { actor: actorOf(res) });
      res.status(204).end();
    })
    .all(methodNotAllowed(['DELETE']));

  app
    .route('/admin/webhooks/:webhookId/deliveries')
    .get(async (req, res) => {
      const query = new ListingQuery(req, ['limit', 'cursor']);
      const limit = query.integer('limit', 20, 1, 100);
      const after = query.cursor(parseDeliveriesCursor);
      const page = await webhooks.listDeliveries(req.params.webhookId, { limit, ...(after ? { after } : {}) }, { actor: actorOf(res) });
      if (page.next) res.setHeader('Link', nextPageLink(`/admin/webhooks/${req.params.webhookId}/deliveries`, { limit: query.text('limit') }, deliveriesCursor(page.next)));
      res.json(page.deliveries.map(({ queuedAtMs: _queuedAtMs, ...delivery }) => delivery));
    })
    .all(methodNotAllowed(['GET']));

  app
    .route('/admin/webhooks/:webhookId/test')
    .post(async (req, res) => {
      const eventId = await webhooks.sendTest(req.params.webhookId, { actor: actorOf(res) });
      res.status(202).json({ eventId });
    })
    .all(methodNotAllowed(['POST']));
}
