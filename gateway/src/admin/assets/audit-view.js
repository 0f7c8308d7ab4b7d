// The audit trail, newest first and paged; its rows are also the account view's own changes.

import { api } from './admin-api.js';
import { $, accountLink, el, show, status } from './dom.js';
import { formatTime } from './format.js';

function describeValues(values) {
  if (values === null || values === undefined) return '—';
  return Object.entries(values)
    .map(([name, value]) => `${name}: ${value === null ? 'none' : value}`)
    .join(', ');
}

export function auditRow(entry) {
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

export async function showAudit() {
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
