// The accounts view: search, filter by plan, page.

import { api } from './admin-api.js';
import { $, accountLink, el, show, status } from './dom.js';
import { formatNumber, formatTime, planLabel } from './format.js';

export async function showAccounts() {
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
