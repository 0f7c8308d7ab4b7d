import { DEFAULT_GRACE_PERIOD_SECONDS } from '../accounts/input-limits';
import { html, type Html } from './html';
import { formatInstant, layout, type PageContext } from './pages';
import { hasExpired, type KeyView } from './portal-keys';

/** The pages that ask before a change to one of the account's own keys: roll and revoke. */

/** The units of the roll form's grace period. */
export const GRACE_UNITS = [
  { name: 'seconds', seconds: 1 },
  { name: 'minutes', seconds: 60 },
  { name: 'hours', seconds: 3_600 },
  { name: 'days', seconds: 86_400 },
] as const;

/** Rolling a key: what will happen, and the grace period (1 day unless changed). */
export function rollPage(context: PageContext, key: KeyView, csrfToken: string): Html {
  const refusal = key.revokedAt
    ? 'This key is revoked: it cannot be rolled. Create a new key instead.'
    : key.replacedBy
      ? `This key was already rolled: its replacement is ${key.replacedBy}. Roll that one instead.`
      : hasExpired(key)
        ? 'This key has expired: it cannot be rolled. Create a new key instead.'
        : undefined;
  return layout(
    context,
    'Roll a key',
    html`<section class="card narrow" aria-labelledby="roll-title">
  <h1 id="roll-title">Roll key <code>${key.id}</code></h1>
  ${
    refusal
      ? html`<p>${refusal}</p><p><a href="/portal">Back to the dashboard</a></p>`
      : html`<p>Rolling makes a new key${key.name ? html` named <strong>${key.name}</strong>` : null}, ${key.access === 'read-only' ? 'read-only' : 'with read and write access'} like this one, shown to you once. This key ${key.masked ? html`(<code>${key.masked}</code>)` : null} keeps working for the grace period, so your clients can switch without a failed request; then it is refused, and the refusal names the new key's id.</p>
  <form method="post" action="/portal/keys/${key.id}/roll" class="stack">
    <input type="hidden" name="_csrf" value="${csrfToken}">
    <label for="grace">Grace period</label>
    <div class="inline-fields">
      <input id="grace" name="grace" type="number" min="0" step="1" required value="${DEFAULT_GRACE_PERIOD_SECONDS / 86_400}" aria-describedby="grace-rule">
      <select id="grace-unit" name="graceUnit" aria-label="Unit of the grace period">
        ${GRACE_UNITS.map((unit) => html`<option value="${unit.name}"${unit.name === 'days' ? html` selected` : null}>${unit.name}</option>`)}
      </select>
    </div>
    <p id="grace-rule" class="hint">From 0 (the key stops working now) to 7 days.</p>
    <div class="actions">
      <button type="submit">Roll this key</button>
      <a href="/portal">Cancel</a>
    </div>
  </form>`
  }
</section>`,
  );
}

export function revokePage(context: PageContext, key: KeyView, csrfToken: string): Html {
  return layout(
    context,
    'Revoke a key',
    html`<section class="card narrow" aria-labelledby="revoke-title">
  <h1 id="revoke-title">Revoke key <code>${key.id}</code>?</h1>
  ${
    key.revokedAt
      ? html`<p>This key was already revoked ${formatInstant(key.revokedAt)}.</p><p><a href="/portal">Back to the dashboard</a></p>`
      : html`<p>Key ${key.masked ? html`<code>${key.masked}</code>` : null}, created ${formatInstant(key.createdAt)}.</p>
  <p>Every request made with it will be refused (401) within a second, on every server. This cannot be undone; you can create a new key at any time.</p>
  <form method="post" action="/portal/keys/${key.id}/revoke" class="actions">
    <input type="hidden" name="_csrf" value="${csrfToken}">
    <button type="submit" class="danger">Revoke this key</button>
    <a href="/portal">Cancel</a>
  </form>`
  }
</section>`,
  );
}

