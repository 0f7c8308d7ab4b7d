import type { ApiEnvironment } from '../../../shared/src/settings';
import { MIN_PASSWORD_LENGTH, MAX_PASSWORD_LENGTH } from './credential-rules';
import { html, type Html } from './html';

/**
 * The portal's pages, rendered on the server: the layout every page shares, the log-in, sign-up and
 * message pages here; the dashboard in `dashboard-page.ts`, the key pages in `key-pages.ts`. Every
 * value goes through `html` (escaped); the only script is /portal/assets/portal.js, and every page
 * works without it (it adds the copy buttons and refreshes the usage numbers).
 */
export interface PageContext {
  environment: ApiEnvironment;
  /** Asset URLs carry a digest of their content, so a changed file is never taken from a cache. */
  assetVersion: string;
  /** Present when a session is: the log-out form needs its CSRF token. */
  signedIn?: { csrfToken: string; email?: string | null };
}

const ENVIRONMENT_NAMES: Record<ApiEnvironment, string> = { production: 'Production', staging: 'Staging' };

export function layout(context: PageContext, title: string, main: Html): Html {
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
        ? html`<a href="/portal/webhooks">Webhooks</a>
    ${signedIn.email ? html`<span class="who">${signedIn.email}</span>` : null}
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

export function alert(kind: 'error' | 'notice', message: string | undefined): Html | null {
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
  <p><a href="/portal/forgot">Forgot your password?</a></p>
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

/** `2026-01-05T12:03:04.567Z` → `2026-01-05 12:03 UTC`; anything else is shown as it is. */
export function formatInstant(iso: string): string {
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})/.exec(iso);
  return match ? `${match[1]} ${match[2]} UTC` : iso;
}
