// One account: its facts, usage now, the 30-day chart, the plan form, its keys and its audit entries.

import { showKeys } from './account-keys.js';
import { showWebhooks } from './account-webhooks.js';
import { api, historyChart } from './admin-api.js';
import { auditRow } from './audit-view.js';
import { $, el, show, status } from './dom.js';
import { formatNumber, formatTime, planLabel } from './format.js';

let currentAccount = null;

export async function showAccount(id) {
  show('account-view', 'accounts');
  $('new-key').hidden = true;
  $('plan-error').textContent = '';
  $('key-error').textContent = '';
  $('new-webhook').hidden = true;
  // The secret is shown once: not left in the page once it is hidden.
  $('new-webhook-secret').textContent = '';
  $('webhook-error').textContent = '';
  const [account, keys, audit, chart, webhooks] = await Promise.all([
    api('GET', `/admin/accounts/${encodeURIComponent(id)}`),
    // Ten at a time (the most active keys an account may hold), under the facts and the chart; "More keys" for the rest.
    api('GET', `/admin/accounts/${encodeURIComponent(id)}/keys?limit=10`),
    api('GET', `/admin/audit?account=${encodeURIComponent(id)}&limit=50`),
    historyChart(id),
    api('GET', `/admin/accounts/${encodeURIComponent(id)}/webhooks`),
  ]);
  currentAccount = account.data;
  renderAccount(account.data);
  $('history-chart').replaceChildren(chart);
  showKeys(account.data.id, keys, () => showAccount(currentAccount.id));
  showWebhooks(account.data.id, webhooks.data, () => showAccount(currentAccount.id));
  $('account-audit-table').tBodies[0].replaceChildren(...audit.data.map(auditRow));
}

function renderAccount(account) {
  $('account-title').textContent = account.name;
  const facts = [
    ['Id', account.id],
    ['Email', account.email ?? '—'],
    ['Email verified', emailVerified(account)],
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

/** Yes (and when), or no with a button that marks it verified; — for an account without an email. */
function emailVerified(account) {
  if (account.emailVerified === null || account.emailVerified === undefined) return '—';
  if (account.emailVerified) return account.emailVerifiedAt ? `yes (${formatTime(account.emailVerifiedAt)})` : 'yes';
  return el('span', {}, 'no ', el('button', { type: 'button', class: 'secondary', onclick: () => markVerified(account.id) }, 'Mark email verified'));
}

async function markVerified(id) {
  try {
    await api('POST', `/admin/accounts/${encodeURIComponent(id)}/verify`);
    await showAccount(id);
    status('Email marked verified: the account may create keys.');
  } catch (error) {
    status(error.message);
  }
}

export async function savePlan(event) {
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
