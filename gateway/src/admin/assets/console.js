// The ops console: a few small vanilla modules over the admin API, no framework and no build step
// (ADR 0005, ADR 0011). Every number it shows comes from /admin, called with the operator's token
// (admin-api.js); everything shown is written with textContent, never as HTML; the one drawing, the
// usage chart, is the gateway's (the portal's chart module), parsed as SVG (XML). This module wires
// the page's forms and buttons to the views and starts signed in when the tab still has a token.

import { createKey, rollKey } from './account-keys.js';
import { addWebhook } from './account-webhooks.js';
import { savePlan } from './account-view.js';
import { onTokenRefused, token } from './admin-api.js';
import { $ } from './dom.js';
import { route } from './router.js';
import { showSignedIn, signIn, signOut } from './sign-in.js';

function start() {
  onTokenRefused(() => signOut('Your token was refused: sign in again.'));
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
  $('webhook-form').addEventListener('submit', (event) => void addWebhook(event));
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
