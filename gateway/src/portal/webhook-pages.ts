import { WEBHOOK_EVENT_TYPES } from '../webhooks/event-types';
import type { CreatedEndpoint } from '../webhooks/webhook-service';
import type { DeliveryRecord, WebhookEndpoint } from '../webhooks/store';
import { html, type Html } from './html';
import { formatInstant, layout, type PageContext } from './pages';

/** The portal's "Webhooks" page (the account's endpoints, the add form) and an endpoint's deliveries. */

export interface WebhooksView {
  endpoints: readonly WebhookEndpoint[];
  csrfToken: string;
  /** Just added: its secret, shown this once. */
  added?: CreatedEndpoint;
  error?: string;
  notice?: string;
  /** What was typed in the add form, kept after a refusal. */
  typedUrl?: string;
}

export function webhooksPage(context: PageContext, view: WebhooksView): Html {
  return layout(
    context,
    'Webhooks',
    html`<h1>Webhooks</h1>
<p>Your systems hear of quota thresholds and key changes as they happen: each event is POSTed as JSON to your endpoints, signed as the <a href="https://www.standardwebhooks.com/">Standard Webhooks</a> specification says, and tried again for hours if your endpoint is down.</p>
${view.error ? html`<p class="error" role="alert">${view.error}</p>` : null}
${view.notice ? html`<p class="notice" role="status">${view.notice}</p>` : null}
${view.added ? addedPanel(view.added) : null}
<section class="card" aria-labelledby="endpoints-title">
  <h2 id="endpoints-title">Endpoints</h2>
  <form method="post" action="/portal/webhooks" class="key-form">
    <input type="hidden" name="_csrf" value="${view.csrfToken}">
    <div class="field">
      <label for="webhook-url">Endpoint URL <span class="hint">(https://; every event type)</span></label>
      <input id="webhook-url" name="url" type="url" maxlength="2048" required placeholder="https://example.com/webhooks/animal-store" value="${view.typedUrl ?? ''}">
    </div>
    <button type="submit">Add the endpoint</button>
  </form>
  ${
    view.endpoints.length === 0
      ? html`<p>No endpoints yet.</p>`
      : html`<div class="scroll"><table class="webhooks">
    <thead><tr><th scope="col">URL</th><th scope="col">Id</th><th scope="col">Created</th><th scope="col">State</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
    <tbody>${view.endpoints.map((endpoint) => endpointRow(endpoint, view.csrfToken))}</tbody>
  </table></div>`
  }
  <p class="hint">Event types: ${WEBHOOK_EVENT_TYPES.join(', ')}.</p>
</section>`,
  );
}

function addedPanel(added: CreatedEndpoint): Html {
  return html`<section class="card new-key" aria-labelledby="secret-title" data-webhook-id="${added.id}">
  <h2 id="secret-title">The endpoint's signing secret</h2>
  <p><strong>Copy it now: it is shown this once.</strong> Your receiver verifies each delivery's <code>webhook-signature</code> with it.</p>
  <div class="copy-row"><code id="webhook-secret" class="secret">${added.secret}</code><button type="button" data-copy="webhook-secret" hidden>Copy secret</button></div>
</section>`;
}

function endpointRow(endpoint: WebhookEndpoint, csrfToken: string): Html {
  return html`<tr data-webhook-id="${endpoint.id}">
  <td><code>${endpoint.url}</code></td>
  <td><code>${endpoint.id}</code></td>
  <td><time datetime="${endpoint.createdAt}">${formatInstant(endpoint.createdAt)}</time></td>
  <td>${endpoint.disabledAt ? html`disabled ${formatInstant(endpoint.disabledAt)} (every delivery failed for 5 days)` : 'enabled'}</td>
  <td class="actions">
    <a class="button" href="/portal/webhooks/${endpoint.id}/deliveries">Deliveries</a>
    <form method="post" action="/portal/webhooks/${endpoint.id}/test" class="inline">
      <input type="hidden" name="_csrf" value="${csrfToken}">
      <button type="submit" class="secondary">Send a test event</button>
    </form>
    <form method="post" action="/portal/webhooks/${endpoint.id}/delete" class="inline">
      <input type="hidden" name="_csrf" value="${csrfToken}">
      <button type="submit" class="danger">Delete</button>
    </form>
  </td>
</tr>`;
}

export function deliveriesPage(context: PageContext, endpoint: { id: string }, deliveries: readonly DeliveryRecord[], notice?: string): Html {
  return layout(
    context,
    'Webhook deliveries',
    html`<h1>Deliveries to <code>${endpoint.id}</code></h1>
${notice ? html`<p class="notice" role="status">${notice}</p>` : null}
<section class="card" aria-labelledby="deliveries-title">
  <h2 id="deliveries-title">Recent deliveries, newest first</h2>
  ${
    deliveries.length === 0
      ? html`<p>No delivery yet.</p>`
      : html`<div class="scroll"><table class="deliveries">
    <thead><tr><th scope="col">Event</th><th scope="col">Type</th><th scope="col">Status</th><th scope="col">Attempts</th><th scope="col">Last answer</th><th scope="col">Next attempt</th></tr></thead>
    <tbody>${deliveries.map(
      (delivery) => html`<tr data-event-id="${delivery.eventId}"><td><code>${delivery.eventId}</code></td><td>${delivery.type}</td><td>${delivery.status}</td><td>${delivery.attempts}</td><td>${delivery.lastResponseStatus ?? '—'}</td><td>${delivery.nextAttemptAt ? formatInstant(delivery.nextAttemptAt) : '—'}</td></tr>`,
    )}</tbody>
  </table></div>`
  }
  <p><a href="/portal/webhooks">Back to the webhooks</a></p>
</section>`,
  );
}
