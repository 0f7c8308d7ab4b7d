// The ops console: a small vanilla module over the admin API, no framework and no build step
// (ADR 0005, ADR 0011). Every number it shows comes from /admin, called with the operator's token as a bearer
// token; the token lives in sessionStorage (this tab only) and is never put in a cookie, so no other
// site can make the browser act with it. Everything shown is written with textContent, never as HTML;
// the one drawing, the usage chart, is the gateway's (the portal's chart module), parsed as SVG (XML).

import { nextLinkTarget } from './link-header.js';

const TOKEN_KEY = 'animal-store-ops-token';
const SVG = 'http://www.w3.org/2000/svg';

const $ = (id) => document.getElementById(id);

/** A refusal of the admin API, with its Error-shape message. */
class ApiFailure extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

// ---------------------------------------------------------------- the admin API

function token() {
  return sessionStorage.getItem(TOKEN_KEY);
}

/** Calls the admin API; resolves to {data, next} where next is the Link rel="next" target, if any. */
async function api(method, path, body) {
  const headers = { authorization: `Bearer ${token()}`, accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  let data = null;
  try {
    data = text === '' ? null : JSON.parse(text);
  } catch {
    // not JSON: reported below by status
  }
  if (response.status === 401) {
    signOut('Your token was refused: sign in again.');
    throw new ApiFailure(401, data?.message ?? 'unauthorized');
  }
  if (!response.ok) throw new ApiFailure(response.status, data?.message ?? `${response.status} ${response.statusText}`);
  return { data, next: nextLinkTarget(response.headers.get('link')) ?? null };
}

/** An account's usage chart, drawn by the gateway: an <svg> element to put in the page. */
async function historyChart(accountId) {
  const response = await fetch(`/admin/accounts/${encodeURIComponent(accountId)}/history.svg`, { headers: { authorization: `Bearer ${token()}` } });
  if (!response.ok) throw new ApiFailure(response.status, `the chart could not be loaded (${response.status})`);
  const drawing = new DOMParser().parseFromString(await response.text(), 'image/svg+xml').documentElement;
  if (drawing.namespaceURI !== SVG || drawing.localName !== 'svg') throw new ApiFailure(500, 'the chart is not an SVG drawing');
  return document.importNode(drawing, true);
}

// ---------------------------------------------------------------- small DOM helpers

/** An element with attributes and children (strings become text nodes: never parsed as HTML). */
function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on')) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat()) if (child !== null && child !== undefined) node.append(child instanceof Node ? child : String(child));
  return node;
}

function status(message) {
  $('status').textContent = message;
}

const numberFormat = new Intl.NumberFormat('en');
const formatNumber = (n) => (n === null || n === undefined ? '—' : numberFormat.format(n));
/** ISO 8601 → `2026-01-02 03:04:05` (UTC, as the API gives it). */
const formatTime = (iso) => (iso ? iso.replace('T', ' ').replace(/\.\d+Z$/, '').replace(/Z$/, '') : '—');
/** A share of quota as a whole percentage; a little use never reads as 0%. */
const shareOf = (used, quota) => {
  const percent = (used / quota) * 100;
  return percent > 0 && percent < 1 ? '<1%' : `${Math.round(percent)}%`;
};
const planLabel = (plan) => plan.charAt(0).toUpperCase() + plan.slice(1);

function accountLink(id, label) {
  return el('a', { href: `#account/${encodeURIComponent(id)}` }, label ?? id);
}

function describeValues(values) {
  if (values === null || values === undefined) return '—';
  return Object.entries(values)
    .map(([name, value]) => `${name}: ${value === null ? 'none' : value}`)
    .join(', ');
}

function auditRow(entry) {
  const target = entry.accountId && entry.target === entry.accountId ? accountLink(entry.target) : entry.target;
  return el(
    'tr',
    {},
    el('td', {}, formatTime(entry.at)),
    el('td', {}, entry.actor),
    el('td', {}, entry.action),
    el('td', {}, target),
    el('td', { class: 'values' }, describeValues(entry.before)),
    el('td', { class: 'values' }, describeValues(entry.after)),
  );
}

// ---------------------------------------------------------------- sign in and out

async function signIn(candidate) {
  sessionStorage.setItem(TOKEN_KEY, candidate);
  try {
    const { data } = await api('GET', '/admin/me');
    $('actor').textContent = data.actor;
    $('sign-in-error').textContent = '';
    showSignedIn(true);
    await route();
  } catch (error) {
    sessionStorage.removeItem(TOKEN_KEY);
    showSignedIn(false);
    $('sign-in-error').textContent = error.status === 401 ? 'That admin token was refused.' : `Could not sign in: ${error.message}`;
  }
}

function signOut(message = '') {
  sessionStorage.removeItem(TOKEN_KEY);
  showSignedIn(false);
  $('sign-in-error').textContent = message;
}

function showSignedIn(signedIn) {
  $('sign-in-view').hidden = signedIn;
  $('nav').hidden = !signedIn;
  $('session').hidden = !signedIn;
  if (!signedIn) {
    for (const id of ['accounts-view', 'account-view', 'usage-view', 'audit-view']) $(id).hidden = true;
    $('token').value = '';
  }
}

// ---------------------------------------------------------------- views

const VIEWS = ['accounts-view', 'account-view', 'usage-view', 'audit-view'];

function show(view, section) {
  for (const id of VIEWS) $(id).hidden = id !== view;
  for (const link of document.querySelectorAll('#nav a')) {
    if (link.getAttribute('href') === `#${section}`) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
}

/** `#accounts`, `#account/ID`, `#usage`, `#audit`: the back button works, and a view can be linked to. */
async function route() {
  if (!token()) return;
  const [section, id] = location.hash.replace(/^#/, '').split('/');
  status('');
  try {
    if (section === 'account' && id) await showAccount(decodeURIComponent(id));
    else if (section === 'usage') await showUsage();
    else if (section === 'audit') await showAudit();
    else await showAccounts();
  } catch (error) {
    if (error.status !== 401) status(`Error: ${error.message}`);
  }
}

// Accounts: search, filter by plan, page.

async function showAccounts() {
  show('accounts-view', 'accounts');
  const params = new URLSearchParams();
  const q = $('search').value.trim();
  const plan = $('plan-filter').value;
  if (q) params.set('q', q);
  if (plan) params.set('plan', plan);
  $('accounts-table').tBodies[0].replaceChildren();
  const query = params.toString();
  await loadAccounts(`/admin/accounts${query ? `?${query}` : ''}`);
}

async function loadAccounts(path) {
  const { data, next } = await api('GET', path);
  const body = $('accounts-table').tBodies[0];
  for (const account of data) {
    body.append(
      el(
        'tr',
        {},
        el('td', {}, accountLink(account.id, account.name)),
        el('td', {}, account.email ?? '—'),
        el('td', {}, planLabel(account.plan)),
        el('td', { class: 'number' }, formatNumber(account.perMinute)),
        el('td', { class: 'number' }, formatNumber(account.perDay)),
        el('td', {}, formatTime(account.createdAt)),
      ),
    );
  }
  $('accounts-empty').hidden = body.rows.length > 0;
  const more = $('accounts-more');
  more.hidden = next === null;
  more.onclick = next === null ? null : () => loadAccounts(next).catch((error) => status(`Error: ${error.message}`));
}

// One account: facts, usage now, the 30-day chart, plan form, keys, its audit entries.

let currentAccount = null;

async function showAccount(id) {
  show('account-view', 'accounts');
  $('new-key').hidden = true;
  $('plan-error').textContent = '';
  $('key-error').textContent = '';
  const [account, keys, audit, chart] = await Promise.all([
    api('GET', `/admin/accounts/${encodeURIComponent(id)}`),
    api('GET', `/admin/accounts/${encodeURIComponent(id)}/keys`),
    api('GET', `/admin/audit?account=${encodeURIComponent(id)}&limit=50`),
    historyChart(id),
  ]);
  currentAccount = account.data;
  renderAccount(account.data);
  $('history-chart').replaceChildren(chart);
  renderKeys(keys.data);
  $('account-audit-table').tBodies[0].replaceChildren(...audit.data.map(auditRow));
}

function renderAccount(account) {
  $('account-title').textContent = account.name;
  const facts = [
    ['Id', account.id],
    ['Email', account.email ?? '—'],
    ['Plan', planLabel(account.plan)],
    ['Per minute', `${formatNumber(account.perMinute)}${account.overrides.perMinute === null ? ' (plan)' : ' (override)'}`],
    ['Per day', `${formatNumber(account.perDay)}${account.overrides.perDay === null ? ' (plan)' : ' (override)'}`],
    ['Created', formatTime(account.createdAt)],
  ];
  $('account-facts').replaceChildren(...facts.flatMap(([term, value]) => [el('dt', {}, term), el('dd', {}, value)]));

  const usage = account.usage;
  const windowFacts = usage
    ? [
        ['This minute', `${formatNumber(usage.minute.used)} of ${formatNumber(usage.minute.limit)} (resets ${formatTime(usage.minute.resetAt)})`],
        ['Today (UTC)', `${formatNumber(usage.day.used)} of ${formatNumber(usage.day.limit)} (resets ${formatTime(usage.day.resetAt)})`],
      ]
    : [['Usage', 'no quotas: nothing is limited']];
  $('account-usage').replaceChildren(...windowFacts.flatMap(([term, value]) => [el('dt', {}, term), el('dd', {}, value)]));

  $('plan-select').value = account.plan;
  $('per-minute').value = account.overrides.perMinute ?? '';
  $('per-day').value = account.overrides.perDay ?? '';
}

/** `active`, `revoked …`, `expired`, `banned until …`, with `replaced by key_…` after a roll. */
function keyState(key, expired) {
  if (key.revokedAt) return `revoked ${formatTime(key.revokedAt)}`;
  const state = expired ? 'expired' : key.bannedUntil !== null ? `banned until ${formatTime(key.bannedUntil)}` : 'active';
  return key.replacedBy ? `${state}, replaced by ${key.replacedBy}` : state;
}

function renderKeys(keys) {
  const rows = keys.map((key) => {
    const expired = key.expiresAt !== null && Date.parse(key.expiresAt) <= Date.now();
    const actions = el('div', { class: 'actions' });
    if (!key.revokedAt && !expired) {
      if (!key.replacedBy) actions.append(el('button', { type: 'button', class: 'secondary', 'data-action': 'roll', onclick: () => openRoll(key) }, 'Roll…'));
      actions.append(el('button', { type: 'button', class: 'danger', 'data-action': 'revoke', onclick: () => revokeKey(key) }, 'Revoke'));
      if (key.bannedUntil !== null) actions.append(el('button', { type: 'button', class: 'secondary', 'data-action': 'lift-ban', onclick: () => liftBan(key) }, 'Lift ban'));
    }
    return el(
      'tr',
      { 'data-key-id': key.id },
      el('td', {}, el('code', {}, key.masked ?? '(not kept)')),
      el('td', {}, el('code', {}, key.id)),
      el('td', {}, key.name ?? '—'),
      el('td', {}, key.access),
      el('td', {}, formatTime(key.createdAt)),
      el('td', {}, key.lastUsedAt ? formatTime(key.lastUsedAt) : 'never'),
      el('td', {}, key.expiresAt ? formatTime(key.expiresAt) : 'never'),
      el('td', {}, keyState(key, expired)),
      el('td', {}, actions),
    );
  });
  $('keys-table').tBodies[0].replaceChildren(...rows);
}

async function revokeKey(key) {
  if (!confirm(`Revoke ${key.masked ?? key.id}? Every gateway replica refuses it within a second; this cannot be undone.`)) return;
  await act(() => api('DELETE', `/admin/keys/${encodeURIComponent(key.id)}`), `Key ${key.id} revoked.`);
}

async function liftBan(key) {
  await act(() => api('DELETE', `/admin/keys/${encodeURIComponent(key.id)}/ban`), `Ban of ${key.id} lifted.`);
}

/** A datetime-local value (`2030-01-31T12:00`, seconds optional) as the UTC time it stands for. */
function utcTime(value) {
  return `${value.length === 16 ? `${value}:00` : value}Z`;
}

async function createKey(event) {
  event.preventDefault();
  if (!currentAccount) return;
  const body = {};
  if ($('key-name').value.trim() !== '') body.name = $('key-name').value.trim();
  if ($('key-read-only').checked) body.access = 'read-only';
  if ($('key-expires').value !== '') body.expiresAt = utcTime($('key-expires').value);
  try {
    const { data } = await api('POST', `/admin/accounts/${encodeURIComponent(currentAccount.id)}/keys`, body);
    $('key-form').reset();
    $('key-error').textContent = '';
    await showAccount(currentAccount.id);
    showNewKey(data);
    status(`Key ${data.id} created.`);
  } catch (error) {
    $('key-error').textContent = error.message;
  }
}

/** The key just made (created or rolled), shown this once. */
function showNewKey(data) {
  $('new-key-value').textContent = data.key;
  const replaces = $('new-key-replaces');
  replaces.hidden = !data.replaces;
  replaces.textContent = data.replaces ? `It replaces ${data.replaces.id}, which keeps working until ${formatTime(data.replaces.expiresAt)} (UTC).` : '';
  $('new-key').hidden = false;
}

let rolling = null;

function openRoll(key) {
  rolling = key;
  $('roll-key-id').textContent = key.id;
  $('roll-form').reset();
  $('roll-dialog').showModal();
}

async function rollKey(event) {
  event.preventDefault();
  const key = rolling;
  $('roll-dialog').close();
  if (!key) return;
  const gracePeriodSeconds = Number($('roll-grace').value) * Number($('roll-grace-unit').value);
  try {
    const { data } = await api('POST', `/admin/keys/${encodeURIComponent(key.id)}/roll`, { gracePeriodSeconds });
    await showAccount(currentAccount.id);
    showNewKey(data);
    status(`Key ${key.id} rolled: the new key is ${data.id}.`);
  } catch (error) {
    status(`Error: ${error.message}`);
  }
}

/** Runs a change, then shows the account again as the API now has it (its audit entry included). */
async function act(change, done) {
  try {
    await change();
    await showAccount(currentAccount.id);
    status(done);
  } catch (error) {
    status(`Error: ${error.message}`);
  }
}

async function savePlan(event) {
  event.preventDefault();
  if (!currentAccount) return;
  const override = (input) => (input.value.trim() === '' ? null : Number(input.value));
  const patch = { plan: $('plan-select').value, perMinute: override($('per-minute')), perDay: override($('per-day')) };
  try {
    await api('PATCH', `/admin/accounts/${encodeURIComponent(currentAccount.id)}`, patch);
    $('plan-error').textContent = '';
    await showAccount(currentAccount.id);
    status('Plan and quotas saved.');
  } catch (error) {
    $('plan-error').textContent = error.message;
  }
}

// Usage board.

async function showUsage() {
  show('usage-view', 'usage');
  const window = $('usage-window').value;
  const [top, refused] = await Promise.all([api('GET', `/admin/usage/top?window=${window}&limit=50`), api('GET', '/admin/usage/refused?limit=50')]);
  $('usage-table').tBodies[0].replaceChildren(
    ...top.data.map((entry) =>
      el(
        'tr',
        {},
        el('td', {}, accountLink(entry.accountId, entry.name)),
        el('td', {}, planLabel(entry.plan)),
        el('td', { class: 'number' }, formatNumber(entry.used)),
        el('td', { class: 'number' }, formatNumber(entry.quota)),
        el('td', { class: 'number' }, shareOf(entry.used, entry.quota)),
      ),
    ),
  );
  $('refused-table').tBodies[0].replaceChildren(
    ...refused.data.map((entry) =>
      el(
        'tr',
        {},
        el('td', {}, el('code', {}, entry.keyId)),
        el('td', {}, accountLink(entry.accountId, entry.name)),
        el('td', {}, planLabel(entry.plan)),
        el('td', { class: 'number' }, formatNumber(entry.refused)),
      ),
    ),
  );
}

// Audit trail.

async function showAudit() {
  show('audit-view', 'audit');
  $('audit-table').tBodies[0].replaceChildren();
  await loadAudit('/admin/audit?limit=50');
}

async function loadAudit(path) {
  const { data, next } = await api('GET', path);
  $('audit-table').tBodies[0].append(...data.map(auditRow));
  const more = $('audit-more');
  more.hidden = next === null;
  more.onclick = next === null ? null : () => loadAudit(next).catch((error) => status(`Error: ${error.message}`));
}

// ---------------------------------------------------------------- wiring

function start() {
  $('sign-in-form').addEventListener('submit', (event) => {
    event.preventDefault();
    void signIn($('token').value.trim());
  });
  $('sign-out').addEventListener('click', () => signOut());
  $('search-form').addEventListener('submit', (event) => {
    event.preventDefault();
    if (location.hash !== '#accounts') location.hash = '#accounts';
    else void route();
  });
  $('plan-form').addEventListener('submit', (event) => void savePlan(event));
  $('key-form').addEventListener('submit', (event) => void createKey(event));
  $('roll-form').addEventListener('submit', (event) => void rollKey(event));
  $('roll-cancel').addEventListener('click', () => $('roll-dialog').close());
  $('usage-form').addEventListener('submit', (event) => {
    event.preventDefault();
    void route();
  });
  window.addEventListener('hashchange', () => void route());

  const saved = token();
  if (saved) void signIn(saved);
  else showSignedIn(false);
}

start();
