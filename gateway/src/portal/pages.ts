import type { Plan } from '../accounts/types';
import type { WindowUsage } from '../admin/account-views';
import { DEFAULT_GRACE_PERIOD_SECONDS, MAX_NAME_LENGTH } from '../admin/input-limits';
import type { ApiEnvironment } from '../../../shared/src/settings';
import type { DailyCount } from '../limits/types';
import { MIN_PASSWORD_LENGTH, MAX_PASSWORD_LENGTH } from './credential-rules';
import { html, type Html } from './html';
import { hasExpired, type Dashboard, type KeyView } from './portal-service';
import { formatCount, usageChart } from '../usage/usage-chart';

/**
 * The portal's pages, rendered on the server. Every value goes through `html` (escaped); the only
 * script is /portal/assets/portal.js, and every page works without it (it adds the copy buttons
 * and refreshes the usage numbers).
 */
export interface PageContext {
  environment: ApiEnvironment;
  /** Asset URLs carry a digest of their content, so a changed file is never taken from a cache. */
  assetVersion: string;
  /** Present when a session is: the log-out form needs its CSRF token. */
  signedIn?: { csrfToken: string; email?: string | null };
}

const ENVIRONMENT_NAMES: Record<ApiEnvironment, string> = { production: 'Production', staging: 'Staging' };

function layout(context: PageContext, title: string, main: Html): Html {
  const environment = ENVIRONMENT_NAMES[context.environment];
  const signedIn = context.signedIn;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Animal Store developer portal (${environment})</title>
<link rel="stylesheet" href="/portal/assets/portal.css?v=${context.assetVersion}">
<script type="module" src="/portal/assets/portal.js?v=${context.assetVersion}"></script>
</head>
<body>
<header class="top">
  <a class="brand" href="/portal">Animal Store <span>developer portal</span></a>
  <span class="environment environment-${context.environment}" data-environment="${context.environment}" title="This portal manages keys for the ${context.environment} API">${environment}</span>
  <nav aria-label="Portal">
    <a href="/docs">API documentation</a>
    ${
      signedIn
        ? html`${signedIn.email ? html`<span class="who">${signedIn.email}</span>` : null}
    <form method="post" action="/portal/logout" class="inline">
      <input type="hidden" name="_csrf" value="${signedIn.csrfToken}">
      <button type="submit" class="link">Log out</button>
    </form>`
        : null
    }
  </nav>
</header>
<main>
${main}
</main>
<footer>
  <p>${environment} environment: keys created here work only with the ${context.environment} API. <a href="/docs">API documentation</a> · <a href="/v1/openapi.json">OpenAPI description</a></p>
</footer>
</body>
</html>
`;
}

function alert(kind: 'error' | 'notice', message: string | undefined): Html | null {
  if (!message) return null;
  return kind === 'error' ? html`<p class="alert error" role="alert">${message}</p>` : html`<p class="alert notice" role="status">${message}</p>`;
}

export interface CredentialsForm {
  csrfToken: string;
  email?: string;
  error?: string;
  notice?: string;
}

/** The CSRF token, the email (as typed, if the form comes back) and the given password input, each with its label. */
function credentialFields(form: CredentialsForm, passwordInput: Html): Html {
  return html`<input type="hidden" name="_csrf" value="${form.csrfToken}">
    <label for="email">Email address</label>
    <input id="email" name="email" type="email" autocomplete="username" required value="${form.email ?? ''}">
    <label for="password">Password</label>
    ${passwordInput}`;
}

export function logInPage(context: PageContext, form: CredentialsForm & { signUpOpen: boolean }): Html {
  return layout(
    context,
    'Log in',
    html`<section class="card narrow" aria-labelledby="login-title">
  <h1 id="login-title">Log in</h1>
  ${alert('notice', form.notice)}
  ${alert('error', form.error)}
  <form method="post" action="/portal/login" class="stack">
    ${credentialFields(form, html`<input id="password" name="password" type="password" autocomplete="current-password" required>`)}
    <button type="submit">Log in</button>
  </form>
  ${form.signUpOpen ? html`<p>New here? <a href="/portal/signup">Create an account</a> and get an API key in a minute.</p>` : html`<p>Sign-up is closed on this deployment: ask the Animal Store team for an account.</p>`}
</section>`,
  );
}

export function signUpPage(context: PageContext, form: CredentialsForm & { signUpOpen: boolean }): Html {
  if (!form.signUpOpen) {
    return layout(
      context,
      'Sign-up closed',
      html`<section class="card narrow" aria-labelledby="signup-title">
  <h1 id="signup-title">Sign-up is closed</h1>
  ${alert('error', form.error)}
  <p>This deployment does not let anyone create an account. Ask the Animal Store team for one, or <a href="/portal">log in</a> if you have one.</p>
</section>`,
    );
  }
  return layout(
    context,
    'Create an account',
    html`<section class="card narrow" aria-labelledby="signup-title">
  <h1 id="signup-title">Create an account</h1>
  <p>Accounts start on the Free plan. You can create API keys as soon as you are in.</p>
  ${alert('error', form.error)}
  <form method="post" action="/portal/signup" class="stack">
    ${credentialFields(
      form,
      html`<input id="password" name="password" type="password" autocomplete="new-password" required minlength="${MIN_PASSWORD_LENGTH}" maxlength="${MAX_PASSWORD_LENGTH}" aria-describedby="password-rule">`,
    )}
    <p id="password-rule" class="hint">${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters. A few unrelated words make a good one.</p>
    <button type="submit">Create account</button>
  </form>
  <p>Already have an account? <a href="/portal">Log in</a>.</p>
</section>`,
  );
}

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
  error?: string;
}

export function dashboardPage(context: PageContext, view: DashboardView): Html {
  const { account, keys, history, plans } = view.dashboard;
  return layout(
    context,
    'Dashboard',
    html`<h1 class="visually-hidden">Dashboard</h1>
${alert('notice', view.notice)}
${alert('error', view.error)}
${view.newKey ? newKeyPanel(view.newKey) : null}
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
${keysSection(keys, view.csrfToken)}
<p class="docs-link">How to call the API: <a href="/docs">API documentation</a>.</p>`,
  );
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

function keysSection(keys: readonly KeyView[], csrfToken: string): Html {
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
  </table></div>`
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

/** A refusal or failure, for a person: what happened and what to do. */
export function messagePage(context: PageContext, title: string, message: string): Html {
  return layout(
    context,
    title,
    html`<section class="card narrow" aria-labelledby="message-title">
  <h1 id="message-title">${title}</h1>
  <p class="alert error" role="alert">${message}</p>
  <p><a href="/portal">Back to the portal</a></p>
</section>`,
  );
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

/** `2026-01-05T12:03:04.567Z` → `2026-01-05 12:03 UTC`; anything else is shown as it is. */
export function formatInstant(iso: string): string {
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})/.exec(iso);
  return match ? `${match[1]} ${match[2]} UTC` : iso;
}
