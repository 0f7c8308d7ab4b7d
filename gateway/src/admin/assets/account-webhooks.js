// The account view's webhook endpoints: the table, adding one (its secret shown this once),
// deleting, sending a test event, and an endpoint's recent deliveries.

import { api } from './admin-api.js';
import { $, el, status } from './dom.js';
import { formatTime } from './format.js';

/** The account whose endpoints are shown, and how the account view shows it again (set by `showWebhooks`). */
let shown = null;

export function showWebhooks(accountId, endpoints, reload) {
  shown = { accountId, reload };
  $('deliveries').hidden = true;
  const rows = endpoints.map((endpoint) =>
    el(
      'tr',
      { 'data-webhook-id': endpoint.id },
      el('td', {}, el('code', {}, endpoint.url)),
      el('td', {}, el('code', {}, endpoint.id)),
      el('td', {}, endpoint.events.join(', ')),
      el('td', {}, formatTime(endpoint.createdAt)),
      el('td', {}, endpoint.disabledAt ? `disabled ${formatTime(endpoint.disabledAt)}` : 'enabled'),
      el(
        'td',
        {},
        el(
          'div',
          { class: 'actions' },
          el('button', { type: 'button', class: 'secondary', 'data-action': 'deliveries', onclick: () => showDeliveries(endpoint) }, 'Deliveries'),
          el('button', { type: 'button', class: 'secondary', 'data-action': 'test', onclick: () => sendTest(endpoint) }, 'Send a test event'),
          el('button', { type: 'button', class: 'danger', 'data-action': 'delete', onclick: () => deleteEndpoint(endpoint) }, 'Delete'),
        ),
      ),
    ),
  );
  $('webhooks-table').tBodies[0].replaceChildren(...rows);
}

export async function addWebhook(event) {
  event.preventDefault();
  if (!shown) return;
  try {
    const { data } = await api('POST', `/admin/accounts/${encodeURIComponent(shown.accountId)}/webhooks`, { url: $('webhook-url').value.trim() });
    $('webhook-form').reset();
    $('webhook-error').textContent = '';
    await shown.reload();
    $('new-webhook-secret').textContent = data.secret;
    $('new-webhook').hidden = false;
    status(`Webhook endpoint ${data.id} added.`);
  } catch (error) {
    $('webhook-error').textContent = error.message;
  }
}

async function deleteEndpoint(endpoint) {
  if (!confirm(`Delete the webhook endpoint ${endpoint.url}? Its pending deliveries are dropped.`)) return;
  try {
    await api('DELETE', `/admin/webhooks/${encodeURIComponent(endpoint.id)}`);
    await shown.reload();
    status(`Webhook endpoint ${endpoint.id} deleted.`);
  } catch (error) {
    status(`Error: ${error.message}`);
  }
}

async function sendTest(endpoint) {
  try {
    const { data } = await api('POST', `/admin/webhooks/${encodeURIComponent(endpoint.id)}/test`);
    status(`Test event ${data.eventId} queued for ${endpoint.url}.`);
    await showDeliveries(endpoint);
  } catch (error) {
    status(`Error: ${error.message}`);
  }
}

async function showDeliveries(endpoint) {
  const { data } = await api('GET', `/admin/webhooks/${encodeURIComponent(endpoint.id)}/deliveries?limit=50`);
  $('deliveries-url').textContent = endpoint.url;
  $('deliveries-table').tBodies[0].replaceChildren(
    ...data.map((delivery) =>
      el(
        'tr',
        { 'data-event-id': delivery.eventId },
        el('td', {}, el('code', {}, delivery.eventId)),
        el('td', {}, delivery.type),
        el('td', {}, delivery.status),
        el('td', {}, String(delivery.attempts)),
        el('td', {}, delivery.lastResponseStatus === null ? '—' : String(delivery.lastResponseStatus)),
        el('td', {}, delivery.nextAttemptAt ? formatTime(delivery.nextAttemptAt) : '—'),
      ),
    ),
  );
  $('deliveries').hidden = false;
}
