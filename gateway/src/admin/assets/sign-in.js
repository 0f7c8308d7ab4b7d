// Signing in and out of the ops console: the token is checked with GET /admin/me before any view.

import { api, forgetToken, keepToken } from './admin-api.js';
import { $, VIEWS } from './dom.js';
import { route } from './router.js';

export async function signIn(candidate) {
  keepToken(candidate);
  try {
    const { data } = await api('GET', '/admin/me');
    $('actor').textContent = data.actor;
    $('sign-in-error').textContent = '';
    showSignedIn(true);
    await route();
  } catch (error) {
    forgetToken();
    showSignedIn(false);
    $('sign-in-error').textContent = error.status === 401 ? 'That admin token was refused.' : `Could not sign in: ${error.message}`;
  }
}

export function signOut(message = '') {
  forgetToken();
  showSignedIn(false);
  $('sign-in-error').textContent = message;
}

export function showSignedIn(signedIn) {
  $('sign-in-view').hidden = signedIn;
  $('nav').hidden = !signedIn;
  $('session').hidden = !signedIn;
  if (!signedIn) {
    for (const id of VIEWS) $(id).hidden = true;
    $('token').value = '';
  }
}
