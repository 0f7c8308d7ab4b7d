// The account view's keys: the table, and creating, rolling, revoking and lifting a ban. After each
// change the account is shown again as the API now has it (its audit entry included).

import { api } from './admin-api.js';
import { $, el, status } from './dom.js';
import { formatTime } from './format.js';

/** The account whose keys are shown, and how the account view shows it again (set by `showKeys`). */
let shown = null;

/** Shows the first page of the account's keys (`{data, next}` as `api` answers), with "More keys" while there are more. */
export function showKeys(accountId, firstPage, reload) {
  shown = { accountId, reload };
  $('keys-table').tBodies[0].replaceChildren();
  appendKeys(firstPage);
}

/** Adds a page of keys under the ones shown; the button fetches the next page (Link rel="next"), like the other listings. */
function appendKeys({ data, next }) {
  $('keys-table').tBodies[0].append(...data.map(keyRow));
  const more = $('keys-more');
  more.hidden = next === null;
  more.onclick = next === null ? null : () => api('GET', next).then(appendKeys, (error) => status(`Error: ${error.message}`));
}

/** `active`, `revoked …`, `expired`, `banned until …`, with `replaced by key_…` after a roll. */
function keyState(key, expired) {
  if (key.revokedAt) return `revoked ${formatTime(key.revokedAt)}`;
  const state = expired ? 'expired' : key.bannedUntil !== null ? `banned until ${formatTime(key.bannedUntil)}` : 'active';
  return key.replacedBy ? `${state}, replaced by ${key.replacedBy}` : state;
}

/** One key as a row of the table, with the actions it still allows. */
function keyRow(key) {
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

export async function createKey(event) {
  event.preventDefault();
  if (!shown) return;
  const body = {};
  if ($('key-name').value.trim() !== '') body.name = $('key-name').value.trim();
  if ($('key-read-only').checked) body.access = 'read-only';
  if ($('key-expires').value !== '') body.expiresAt = utcTime($('key-expires').value);
  try {
    const { data } = await api('POST', `/admin/accounts/${encodeURIComponent(shown.accountId)}/keys`, body);
    $('key-form').reset();
    $('key-error').textContent = '';
    await shown.reload();
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

export async function rollKey(event) {
  event.preventDefault();
  const key = rolling;
  $('roll-dialog').close();
  if (!key) return;
  const gracePeriodSeconds = Number($('roll-grace').value) * Number($('roll-grace-unit').value);
  try {
    const { data } = await api('POST', `/admin/keys/${encodeURIComponent(key.id)}/roll`, { gracePeriodSeconds });
    await shown.reload();
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
    await shown.reload();
    status(done);
  } catch (error) {
    status(`Error: ${error.message}`);
  }
}
