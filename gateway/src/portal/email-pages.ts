import { MIN_PASSWORD_LENGTH, MAX_PASSWORD_LENGTH } from './credential-rules';
import type { EmailStatus } from './account-emails';
import { html, type Html } from './html';
import { alert, layout, type PageContext } from './pages';

/** The pages of the email flows: forgot password, new password, verify the address, quota emails off; and the dashboard's email card. */

interface FormPage {
  csrfToken: string;
  error?: string;
  notice?: string;
}

export function forgotPage(context: PageContext, form: FormPage & { email?: string }): Html {
  return layout(
    context,
    'Forgot your password?',
    html`<section class="card narrow" aria-labelledby="forgot-title">
  <h1 id="forgot-title">Forgot your password?</h1>
  ${alert('notice', form.notice)}
  ${alert('error', form.error)}
  <p>Enter the email address of your account. If it has one, we email it a link to choose a new password; the link works for 1 hour.</p>
  <form method="post" action="/portal/forgot" class="stack">
    <input type="hidden" name="_csrf" value="${form.csrfToken}">
    <label for="email">Email address</label>
    <input id="email" name="email" type="email" autocomplete="username" required value="${form.email ?? ''}">
    <button type="submit">Email me a link</button>
  </form>
  <p>Remembered it? <a href="/portal/login">Log in</a>.</p>
</section>`,
  );
}

/** A page an emailed link opens: a form that carries the link's token (and the form token), with `fields` and a button. */
function linkFormPage(context: PageContext, form: FormPage & { token: string }, page: { title: string; action: string; intro: Html | null; fields: Html }): Html {
  return layout(
    context,
    page.title,
    html`<section class="card narrow" aria-labelledby="link-title">
  <h1 id="link-title">${page.title}</h1>
  ${alert('error', form.error)}
  ${page.intro}
  <form method="post" action="${page.action}" class="stack">
    <input type="hidden" name="_csrf" value="${form.csrfToken}">
    <input type="hidden" name="token" value="${form.token}">
    ${page.fields}
  </form>
</section>`,
  );
}

export function resetPage(context: PageContext, form: FormPage & { token: string }): Html {
  return linkFormPage(context, form, {
    title: 'Choose a new password',
    action: '/portal/reset',
    intro: html`<p>Setting a new password logs out every session of your account, on every device. Link expired? <a href="/portal/forgot">Ask for a new one</a>.</p>`,
    fields: html`<label for="password">New password</label>
    <input id="password" name="password" type="password" autocomplete="new-password" required minlength="${MIN_PASSWORD_LENGTH}" maxlength="${MAX_PASSWORD_LENGTH}" aria-describedby="password-rule">
    <p id="password-rule" class="hint">${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters, the same rules as at sign-up. A few unrelated words make a good one.</p>
    <button type="submit">Set the new password</button>`,
  });
}

/** A button, not the link itself, uses the link up: mail scanners that open links cannot spend it. */
export function verifyPage(context: PageContext, form: FormPage & { token: string }): Html {
  return linkFormPage(context, form, { title: 'Confirm your email address', action: '/portal/verify', intro: null, fields: html`<button type="submit">Confirm my email address</button>` });
}

export function unsubscribePage(context: PageContext, action: string, done: boolean): Html {
  return layout(
    context,
    'Quota emails',
    html`<section class="card narrow" aria-labelledby="unsubscribe-title">
  <h1 id="unsubscribe-title">Quota emails</h1>
  ${
    done
      ? html`<p class="alert notice" role="status">Quota emails are off for this account. Turn them on again in the portal, under "Emails".</p>`
      : html`<p>Stop the emails that warn when the account has used 80 % and 100 % of its day quota?</p>
  <form method="post" action="${action}" class="stack">
    <button type="submit">Turn quota emails off</button>
  </form>`
  }
  <p><a href="/portal">Go to the portal</a></p>
</section>`,
  );
}

/** The dashboard's card: whether the address is confirmed (and the way to get a new link), and the quota emails' switch. */
export function emailCard(status: EmailStatus, email: string | null, csrfToken: string): Html | null {
  if (email === null) return null;
  const unverified = status.verified
    ? null
    : html`<div class="alert ${status.blocksKeys ? 'error' : 'notice'}" role="status" data-email-unverified>
      <p>${status.blocksKeys ? 'Your email address is not confirmed yet, so this account cannot create API keys.' : 'Your email address is not confirmed yet.'} Open the link we emailed to ${email}; it works for 24 hours.</p>
      <form method="post" action="/portal/verify/resend" class="inline">
        <input type="hidden" name="_csrf" value="${csrfToken}">
        <button type="submit">Send the link again</button>
      </form>
    </div>`;
  return html`<section class="card" aria-labelledby="emails-title">
  <h2 id="emails-title">Emails</h2>
  ${unverified}
  <form method="post" action="/portal/email-settings" class="stack">
    <input type="hidden" name="_csrf" value="${csrfToken}">
    <div class="field check">
      <input id="quota-emails" name="quotaEmails" type="checkbox" value="on"${status.quotaEmails ? html` checked` : null}>
      <label for="quota-emails">Email me when the account has used 80 % and 100 % of its day quota</label>
    </div>
    <button type="submit">Save email settings</button>
  </form>
</section>`;
}
