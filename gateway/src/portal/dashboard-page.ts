import type { Plan } from '../accounts/types';
import type { KeyPosition, WindowUsage } from '../accounts/account-views';
import { MAX_NAME_LENGTH } from '../accounts/input-limits';
import { keysCursor } from '../listing-cursors';
import type { DailyCount } from '../limits/types';
import { formatCount, usageChart } from '../usage/usage-chart';
import { emailCard } from './email-pages';
import { html, type Html } from './html';
import { alert, formatInstant, layout, type PageContext } from './pages';
import { hasExpired, type KeyView } from './portal-keys';
import type { Dashboard } from './portal-service';

/** The dashboard: usage now and over 30 days, the keys, the plan and what is above it. */

export interface NewKeyPanel {
  id: string;
  key: string;
  /** Where the API is, e.g. `https://api.animalstore.example/v1`. */
  apiBase: string;
  /** After a roll: the key this one replaces, and when that one stops working. */
  replaces?: { id: string; expiresAt: string };
}

export interface DashboardView {
  dashboard: Dashboard;
  csrfToken: string;
  newKey?: NewKeyPanel;
  notice?: string;
  /** Just signed up: the welcome says what to do first. */
  welcome?: boolean;
  error?: string;
}

export function dashboardPage(context: PageContext, view: DashboardView): Html {
  const { account, keys, history, plans } = view.dashboard;
  return layout(
    context,
    'Dashboard',
    html`<h1 class="visually-hidden">Dashboard</h1>
${alert('notice', view.welcome ? welcomeOf(view.dashboard) : view.notice)}
${alert('error', view.error)}
${view.newKey ? newKeyPanel(view.newKey) : null}
${view.dashboard.email.verified ? null : emailCard(view.dashboard.email, account.email, view.csrfToken)}
<div class="grid">
  <section class="card" aria-labelledby="plan-title">
    <h2 id="plan-title">Plan</h2>
    <p class="plan-name" data-plan="${account.plan}">${planName(account.plan)}</p>
    <dl class="numbers">
      <div><dt>Per minute</dt><dd>${quota(account.perMinute)}</dd></div>
      <div><dt>Per day (UTC)</dt><dd>${quota(account.perDay)}</dd></div>
    </dl>
    ${higherPlans(plans, account.plan, account.id)}
  </section>
  <section class="card" aria-labelledby="usage-title" data-usage-url="/portal/usage">
    <h2 id="usage-title">Usage now</h2>
    ${account.usage ? [usageWindow('minute', 'This minute', account.usage.minute), usageWindow('day', 'Today (UTC)', account.usage.day)] : html`<p>No quotas are set for this account.</p>`}
    <p class="hint">The same numbers as the <code>X-RateLimit-*</code> headers of your API responses; only accepted requests count. This page refreshes them every few seconds.</p>
  </section>
</div>
<section class="card" aria-labelledby="history-title">
  <h2 id="history-title">Accepted requests per day, last ${history.length} days (UTC)</h2>
  ${usageChart(history)}
  ${historyTable(history)}
</section>
${keysSection(keys, view.dashboard.nextKeys, view.csrfToken)}
${view.dashboard.email.verified ? emailCard(view.dashboard.email, account.email, view.csrfToken) : null}
<p class="docs-link">How to call the API: <a href="/docs">API documentation</a>.</p>`,
  );
}

function welcomeOf(dashboard: Dashboard): string {
  return dashboard.email.blocksKeys
    ? 'Welcome! Your account is ready: confirm your email address with the link we sent, then create a key to start calling the API.'
    : 'Welcome! Your account is ready: create a key to start calling the API.';
}

function newKeyPanel(newKey: NewKeyPanel): Html {
  const curl = `curl -i -H "Authorization: Bearer ${newKey.key}" ${newKey.apiBase}/pets`;
  return html`<section class="card new-key" aria-labelledby="new-key-title" data-key-id="${newKey.id}">
  <h2 id="new-key-title">Your new key</h2>
  ${
    newKey.replaces
      ? html`<p class="replaces" data-replaces="${newKey.replaces.id}">It replaces key <code>${newKey.replaces.id}</code>, which keeps working until <time datetime="${newKey.replaces.expiresAt}">${formatInstant(newKey.replaces.expiresAt)}</time>: switch your clients to the new key before then.</p>`
      : null
  }
  <p><strong>Copy it now: it is shown this once.</strong> Only a hash of it is kept, so nobody, the Animal Store team included, can show it again.</p>
  <div class="copy-row"><code id="new-key" class="secret">${newKey.key}</code><button type="button" data-copy="new-key" hidden>Copy key</button></div>
  <p>Try it:</p>
  <div class="copy-row"><code id="new-key-curl" class="command">${curl}</code><button type="button" data-copy="new-key-curl" hidden>Copy command</button></div>
</section>`;
}

function usageWindow(name: 'minute' | 'day', title: string, usage: WindowUsage): Html {
  return html`<div class="window" data-window="${name}">
    <h3>${title}</h3>
    <p><strong data-field="used">${formatCount(usage.used)}</strong> of <span data-field="limit">${formatCount(usage.limit)}</span> used, <span data-field="remaining">${formatCount(usage.remaining)}</span> left</p>
    <progress max="${usage.limit}" value="${usage.used}" aria-label="${title}: ${usage.used} of ${usage.limit} used">${usage.used} of ${usage.limit}</progress>
    <p class="hint">Resets at <time data-field="resetAt" datetime="${usage.resetAt}">${formatInstant(usage.resetAt)}</time></p>
  </div>`;
}

function historyTable(history: readonly DailyCount[]): Html {
  return html`<details>
    <summary>Show as a table</summary>
    <table class="history">
      <thead><tr><th scope="col">Day (UTC)</th><th scope="col">Accepted requests</th></tr></thead>
      <tbody>${[...history].reverse().map((day) => html`<tr><td>${day.day}</td><td>${formatCount(day.accepted)}</td></tr>`)}</tbody>
    </table>
  </details>`;
}

function keysSection(keys: readonly KeyView[], nextKeys: KeyPosition | null, csrfToken: string): Html {
  return html`<section class="card" aria-labelledby="keys-title">
  <h2 id="keys-title">API keys</h2>
  <form method="post" action="/portal/keys" class="key-form">
    <input type="hidden" name="_csrf" value="${csrfToken}">
    <div class="field">
      <label for="key-name">Name <span class="hint">(optional)</span></label>
      <input id="key-name" name="name" type="text" maxlength="${MAX_NAME_LENGTH}" placeholder="e.g. Production server">
    </div>
    <div class="field">
      <label for="key-expires">Expires at, UTC <span class="hint">(optional: empty never expires)</span></label>
      <input id="key-expires" name="expiresAt" type="datetime-local">
    </div>
    <div class="field check">
      <input id="key-read-only" name="access" type="checkbox" value="read-only">
      <label for="key-read-only">Read-only <span class="hint">(GET and HEAD only)</span></label>
    </div>
    <button type="submit">Create a key</button>
  </form>
  ${
    keys.length === 0
      ? html`<p>No keys yet. Create one to call the API.</p>`
      : html`<div class="scroll"><table class="keys">
    <thead><tr><th scope="col">Id</th><th scope="col">Key</th><th scope="col">Name</th><th scope="col">Access</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Expires</th><th scope="col"><span class="visually-hidden">Status and actions</span></th></tr></thead>
    <tbody>
    ${keys.map((key) => keyRow(key))}
    </tbody>
  </table></div>
  ${nextKeys ? html`<p class="pager"><a href="/portal?cursor=${keysCursor(nextKeys)}#keys-title" rel="next">Next page of keys</a></p>` : null}`
  }
</section>`;
}

/** One key: what it is, and what can still be done with it (roll, revoke) or why nothing can. */
function keyRow(key: KeyView): Html {
  const expired = hasExpired(key);
  const replaced = key.replacedBy ? html`<span class="status">Replaced by <code>${key.replacedBy}</code></span>` : null;
  const revoke = html`<a class="button danger" href="/portal/keys/${key.id}/revoke">Revoke…</a>`;
  let status: Html;
  if (key.revokedAt) status = html`<span class="status">Revoked ${formatInstant(key.revokedAt)}</span>`;
  else if (expired) status = html`<span class="status">Expired</span>${replaced}`;
  else if (key.replacedBy) status = html`${replaced}<span class="status">works until ${formatInstant(key.expiresAt!)}</span>${revoke}`;
  else status = html`<a class="button" href="/portal/keys/${key.id}/roll">Roll…</a>${revoke}`;
  return html`<tr data-key-id="${key.id}" class="${key.revokedAt ? 'revoked' : expired ? 'expired' : 'active'}">
      <td><code>${key.id}</code></td>
      <td>${key.masked ? html`<code>${key.masked}</code>` : html`<span class="hint" title="Created before masked forms were kept">not shown</span>`}</td>
      <td>${key.name ?? html`<span class="hint">none</span>`}</td>
      <td data-access="${key.access}">${key.access === 'read-only' ? 'Read-only' : 'Read and write'}</td>
      <td>${formatInstant(key.createdAt)}</td>
      <td>${lastUse(key.lastUsedAt)}</td>
      <td>${key.expiresAt ? html`<time datetime="${key.expiresAt}">${formatInstant(key.expiresAt)}</time>` : html`<span class="hint">never</span>`}</td>
      <td><div class="key-actions">${status}</div></td>
    </tr>`;
}

function higherPlans(plans: readonly Plan[], current: string, accountId: string): Html {
  const order = plans.map((plan) => plan.name as string);
  const higher = plans.filter((plan) => order.indexOf(plan.name) > order.indexOf(current));
  if (higher.length === 0) return html`<p class="hint">Your plan is the highest there is. Your account: <code>${accountId}</code>.</p>`;
  return html`<div class="upgrade">
      <h3>Need more?</h3>
      <ul>${higher.map((plan) => html`<li>${planName(plan.name)}: ${plan.perMinute === null || plan.perDay === null ? 'numbers agreed with you' : `${formatCount(plan.perMinute)} a minute, ${formatCount(plan.perDay)} a day`}</li>`)}</ul>
      <p>Plans are changed by the Animal Store team: write to them with your account id, <code>${accountId}</code>, and the plan you want.</p>
    </div>`;
}

function lastUse(lastUsedAt: string | null): Html | string {
  return lastUsedAt === null ? html`<span class="hint">never</span>` : formatInstant(lastUsedAt);
}

function planName(plan: string): string {
  return plan.charAt(0).toUpperCase() + plan.slice(1);
}

function quota(value: number | null): string {
  return value === null ? 'not set' : formatCount(value);
}

