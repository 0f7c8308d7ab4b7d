import type { Browser, Page } from 'playwright-core';
import { describeIfBrowser, launchBrowser } from '../helpers/browser';
import { TestSmtpServer, linkIn } from '../helpers/smtp-server';
import { startSystem, type SystemHandle } from '../helpers/system';

/**
 * The portal's email flows in headless Chromium against the compiled gateway, with a real SMTP
 * server: sign up → the email arrives → follow its link → create a key; forgot the password →
 * the email → a new password → the old session is gone. Links are absolute on
 * `http://localhost:PORT` (no PUBLIC_BASE_URL), the gateway's own port.
 */
jest.setTimeout(90_000);

const PASSWORD = 'correct horse battery staple';
const NEW_PASSWORD = 'violet lantern harbour quietly';

describeIfBrowser()('portal emails in Chromium', () => {
  let smtp: TestSmtpServer;
  let system: SystemHandle;
  let browser: Browser;
  let portal: string;

  beforeAll(async () => {
    smtp = await TestSmtpServer.start();
    [system, browser] = await Promise.all([startSystem({ gatewayEnv: { SMTP_URL: smtp.url } }), launchBrowser()]);
    portal = system.gateways[0]!.url;
  });

  afterAll(async () => {
    await browser?.close();
    await system?.stop();
    await smtp?.stop();
  });

  /** A page that records script errors and CSP violations. */
  async function newPage(): Promise<{ page: Page; problems: string[] }> {
    const page = await (await browser.newContext()).newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) problems.push(`console: ${message.text()}`);
    });
    return { page, problems };
  }

  it('when a developer signs up, then the emailed link confirms the address and keys can be created; a forgotten password is set anew by email and ends the old session', async () => {
    const { page, problems } = await newPage();
    const email = `mail.${Date.now()}@example.com`;
    await page.goto(`${portal}/portal/signup`);
    await page.getByLabel('Email address').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(`${portal}/portal?welcome=1`);

    // Keys wait for the confirmation, and the dashboard says so.
    await expect(page.locator('[data-email-unverified]').textContent()).resolves.toContain('cannot create API keys');
    await page.getByRole('button', { name: 'Create a key' }).click();
    await expect(page.locator('[role="alert"]').first().textContent()).resolves.toContain('Confirm your email address before creating keys');

    const [verification] = await smtp.emailsTo(email);
    const link = linkIn(verification!, '/portal/verify');
    expect(link.startsWith(`http://localhost:${system.gateways[0]!.port}/portal/verify?token=`)).toBe(true);
    // The link is on localhost; the session on the portal's own address: open the link's page there.
    await page.goto(`${portal}${new URL(link).pathname}${new URL(link).search}`);
    await page.getByRole('button', { name: 'Confirm my email address' }).click();
    await page.waitForURL(`${portal}/portal?verified=1`);
    await expect(page.locator('[role="status"]').first().textContent()).resolves.toContain('Your email address is confirmed.');
    await page.getByRole('button', { name: 'Create a key' }).click();
    await expect(page.locator('#new-key').textContent()).resolves.toMatch(/^ask_live_/);

    // Forgot the password, from another browser: the link sets a new one; the first browser's session ends.
    const { page: other, problems: otherProblems } = await newPage();
    await other.goto(`${portal}/portal/login`);
    await other.getByRole('link', { name: 'Forgot your password?' }).click();
    await other.getByLabel('Email address').fill(email);
    await other.getByRole('button', { name: 'Email me a link' }).click();
    await expect(other.locator('[role="status"]').first().textContent()).resolves.toContain('a link to choose a new password is on its way');
    const reset = (await smtp.emailsTo(email, 2)).find((received) => /new password/.test(received.subject))!;
    const resetLink = new URL(linkIn(reset, '/portal/reset'));
    await other.goto(`${portal}${resetLink.pathname}${resetLink.search}`);
    const newPassword = other.getByLabel('New password', { exact: true });
    // A common password passes the browser's own check (length) and is refused on the page by sign-up's rules.
    await newPassword.fill('password1234');
    await other.getByRole('button', { name: 'Set the new password' }).click();
    await expect(other.locator('[role="alert"]').first().isVisible()).resolves.toBe(true);
    await newPassword.fill(NEW_PASSWORD);
    await other.getByRole('button', { name: 'Set the new password' }).click();
    await other.waitForURL(`${portal}/portal/login?reset=1`);
    await expect(other.locator('[role="status"]').first().textContent()).resolves.toContain('Your new password is set');

    await page.goto(`${portal}/portal`);
    await expect(page.getByRole('heading', { name: 'Log in' }).isVisible()).resolves.toBe(true);
    await other.getByLabel('Email address').fill(email);
    await other.getByLabel('Password').fill(NEW_PASSWORD);
    await other.getByRole('button', { name: 'Log in' }).click();
    await other.waitForURL(`${portal}/portal`);
    await expect(other.locator('.who').textContent()).resolves.toBe(email);
    expect([...problems, ...otherProblems]).toEqual([]);
  });
});
