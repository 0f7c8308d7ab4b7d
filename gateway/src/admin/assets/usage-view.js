// The usage board: who is nearest their quota in the current window, and the keys refused most today.

import { api } from './admin-api.js';
import { $, accountLink, el, show } from './dom.js';
import { formatNumber, planLabel, shareOf } from './format.js';

export async function showUsage() {
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
