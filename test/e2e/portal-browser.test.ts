import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { describeIfBrowser, launchBrowser } from '../helpers/browser';
import { sleep, waitFor } from '../helpers/ports';
import { expectChangedWithin } from '../helpers/propagation';
import { startSystem, type SystemHandle } from '../helpers/system';
import { WebhookReceiver } from '../helpers/webhook-receiver';

/**
 * The developer portal in headless Chromium, against the real system from the compiled build:
 * a pets-service, two gateway replicas and their Redis. The browser uses the first replica; the
 * API calls (made by the test, with the key read from the page) go to the second, so every step
 * also shows that portal accounts, keys, revocations and usage are shared by the replicas.
 */
jest.setTimeout(90_000);

const PASSWORD = 'correct horse battery staple';

describeIfBrowser()('developer portal in Chromium', () => {
  let system: SystemHandle;
  let browser: Browser;
  let portal: string;
  let otherReplica: string;
  let signUps = 0;

  beforeAll(async () => {
    // Webhook endpoints on this machine's receiver (http://127.0.0.1): allowed for the test.
    [system, browser] = await Promise.all([startSystem({ redis: true, replicas: 2, gatewayEnv: { WEBHOOK_ALLOW_PRIVATE: 'true' } }), launchBrowser()]);
    portal = system.gateways[0]!.url;
    otherReplica = system.gateways[1]!.url;
  });

  afterAll(async () => {
    await browser?.close();
    await system?.stop();
  });

  /** A fresh browser profile whose page records script errors, CSP violations and assets that failed to load. */
  async function newPage(): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
    const context = await browser.newContext();
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      // Pages answered 401, 403 or 404 on purpose are logged as "Failed to load resource": not a problem.
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) problems.push(`console: ${message.text()}`);
    });
    page.on('response', (response) => {
      if (response.url().includes('/portal/assets/') && response.status() >= 400) problems.push(`asset ${response.url()}: ${response.status()}`);
    });
    return { context, page, problems };
  }

  async function signUp(page: Page): Promise<string> {
    const email = `browser${(signUps += 1)}.${Date.now()}@example.com`;
    await page.goto(`${portal}/portal`);
    await page.getByRole('link', { name: 'Create an account' }).click();
    await page.getByLabel('Email address').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(`${portal}/portal?welcome=1`);
    return email;
  }

  async function createKey(page: Page): Promise<{ key: string; keyId: string }> {
    await page.getByRole('button', { name: 'Create a key' }).click();
    const key = (await page.locator('#new-key').textContent())!;
    const keyId = (await page.locator('section.new-key').getAttribute('data-key-id'))!;
    return { key, keyId };
  }

  const callApi = (key: string, base = otherReplica) => fetch(`${base}/v1/pets`, { headers: { authorization: `Bearer ${key}` } });

  it('when a developer signs up, creates a key and calls the API, then usage and chart move, revocation is refused everywhere, and log-out ends it', async () => {
    const { context, page, problems } = await newPage();
    const email = await signUp(page);
    await expect(page.locator('.environment').textContent()).resolves.toBe('Production');
    await expect(page.locator('[role="status"]').first().textContent()).resolves.toContain('Welcome!');
    await expect(page.locator('.who').textContent()).resolves.toBe(email);
    await expect(page.locator('.plan-name').textContent()).resolves.toBe('Free');
    await expect(page.locator('a[href="/docs"]').first().isVisible()).resolves.toBe(true);

    // Create a key: shown once, with a copy button (the script ran) and a curl line on this API.
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: portal });
    const { key, keyId } = await createKey(page);
    expect(key).toMatch(/^ask_live_[0-9A-Za-z]{28}$/);
    await expect(page.locator('#new-key-curl').textContent()).resolves.toBe(`curl -i -H "Authorization: Bearer ${key}" ${portal}/v1/pets`);
    await page.getByRole('button', { name: 'Copy key' }).click();
    // The label changes once the clipboard write has resolved: wait for it rather than look at once.
    await page.getByRole('button', { name: 'Copied' }).waitFor({ state: 'visible', timeout: 15_000 });
    // Page code is passed as text: this project's TypeScript has no DOM types.
    await expect(page.evaluate('navigator.clipboard.readText()')).resolves.toBe(key);

    // Call the API with it (on the other replica): the usage card updates itself, without a reload.
    // The minute window starts with its first request and lasts 60 s, and on a loaded machine the
    // page steps between the fourth call and the fifth have outlasted it (59 left instead of 55): an
    // attempt counts when its five calls fell in one window with time left for the card to refresh;
    // otherwise the next starts in a fresh window, once that one has ended.
    const minuteUsed = page.locator('[data-window="minute"] [data-field="used"]');
    let accepted = 0;
    for (let attempt = 1; ; attempt += 1) {
      const calls: Response[] = [];
      for (let i = 0; i < 4; i += 1) calls.push(await callApi(key));
      await page.goto(`${portal}/portal`);
      expect(await page.content()).not.toContain(key);
      await expect(page.locator(`tr[data-key-id="${keyId}"] td:nth-child(2)`).textContent()).resolves.toBe(`ask_live_…${key.slice(-4)}`);
      const cardShowed = await minuteUsed.textContent();
      calls.push(await callApi(key));
      expect(calls.map((reply) => reply.status)).toEqual([200, 200, 200, 200, 200]);
      accepted += calls.length;
      const windowEndsMs = Number(calls[4]!.headers.get('x-ratelimit-reset')) * 1000;
      const oneWindow = new Set(calls.map((reply) => reply.headers.get('x-ratelimit-reset'))).size === 1;
      if (oneWindow && windowEndsMs - Date.now() > 20_000) {
        expect(cardShowed).toBe('4');
        expect(calls[4]!.headers.get('x-ratelimit-remaining')).toBe('55');
        break;
      }
      if (attempt === 3) throw new Error('three attempts in a row outlasted their minute window');
      await sleep(Math.max(0, windowEndsMs - Date.now()) + 1_000);
    }
    // (Polled from here: page.waitForFunction would evaluate a string in the page, which the CSP forbids.)
    await waitFor(async () => (await minuteUsed.textContent()) === '5', 12_000, 'the usage card to refresh itself');
    await expect(page.locator('[data-window="day"] [data-field="remaining"]').textContent()).resolves.toBe(String(1000 - accepted));

    // The chart is drawn: thirty bars, today's holding the accepted requests, with a height.
    await page.reload();
    const bars = page.locator('svg.usage-chart rect.bar');
    await expect(bars.count()).resolves.toBe(30);
    const today = page.locator('svg.usage-chart rect.bar.today');
    await expect(today.getAttribute('data-accepted')).resolves.toBe(String(accepted));
    expect((await today.boundingBox())!.height).toBeGreaterThan(10);

    // Revoke, with a confirmation page: the other replica refuses the key within a second.
    await page.locator(`tr[data-key-id="${keyId}"]`).getByRole('link', { name: 'Revoke…' }).click();
    await expect(page.locator('h1').textContent()).resolves.toContain(keyId);
    await page.getByRole('button', { name: 'Revoke this key' }).click();
    await expect(page.locator('[role="status"]').first().textContent()).resolves.toContain(`Key ${keyId} is revoked`);
    const revokedAt = Date.now();
    await expectChangedWithin(revokedAt, 1_000, async () => (await callApi(key)).status === 401, 'the other replica refuses the revoked key');
    await expect(page.locator(`tr[data-key-id="${keyId}"]`).getAttribute('class')).resolves.toBe('revoked');

    // Log out: the dashboard is gone, and the session cookie with it.
    await page.getByRole('button', { name: 'Log out' }).click();
    await expect(page.locator('[role="status"]').textContent()).resolves.toBe('You have logged out.');
    await page.goto(`${portal}/portal`);
    await expect(page.getByRole('heading', { name: 'Log in' }).isVisible()).resolves.toBe(true);
    expect((await context.cookies()).some((cookie) => cookie.name === 'portal-session')).toBe(false);

    // A wrong password: one clear message, and no way in.
    await page.getByLabel('Email address').fill(email);
    await page.getByLabel('Password').fill('not the password at all');
    await page.getByRole('button', { name: 'Log in' }).click();
    await expect(page.locator('[role="alert"]').textContent()).resolves.toBe('The email or password is incorrect.');
    await expect(page.getByLabel('Email address').inputValue()).resolves.toBe(email);

    // The right one still works.
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL(`${portal}/portal`);
    await expect(page.locator('.who').textContent()).resolves.toBe(email);
    expect(problems).toEqual([]);
    await context.close();
  }, 240_000); // up to three minute windows on a loaded machine (above), beside the steps' own time

  it('when a developer adds a webhook endpoint and sends a test event, then the secret is shown once with a copy button, the receiver verifies the event, and the deliveries page lists it', async () => {
    const receiver = await WebhookReceiver.start();
    try {
      const { context, page, problems } = await newPage();
      await signUp(page);
      await page.getByRole('link', { name: 'Webhooks' }).click();
      await page.getByLabel('Endpoint URL').fill(receiver.url);
      await page.getByRole('button', { name: 'Add the endpoint' }).click();
      const secret = (await page.locator('#webhook-secret').textContent())!;
      expect(secret).toMatch(/^whsec_/);
      await expect(page.getByRole('button', { name: 'Copy secret' }).isVisible()).resolves.toBe(true);
      await page.getByRole('button', { name: 'Send a test event' }).click();
      await waitFor(() => receiver.received.length === 1, 10_000, 'the test event at the receiver');
      expect(receiver.verifyAll(secret)[0]!.type).toBe('webhook.test');
      await waitFor(async () => {
        await page.reload();
        return (await page.locator('table.deliveries td:nth-child(3)').first().textContent().catch(() => null)) === 'delivered';
      }, 10_000, 'the delivery listed as delivered');
      await page.goto(`${portal}/portal/webhooks`);
      expect(await page.content()).not.toContain(secret);
      await page.getByRole('button', { name: 'Delete' }).click();
      await expect(page.locator('[role="status"]').first().textContent()).resolves.toContain('deleted');
      expect(problems).toEqual([]);
      await context.close();
    } finally {
      await receiver.close();
    }
  });

  it('when a developer creates a named read-only key and rolls it with a short grace period, then the new key is shown once, the old one works until the grace ends and then stops, on the other replica too', async () => {
    const { page, context, problems } = await newPage();
    await signUp(page);

    // Create: a name, read-only, an expiry far away.
    await page.getByLabel('Name').fill('Status dashboard');
    await page.getByLabel(/Expires at, UTC/).fill('2999-01-31T12:30');
    await page.getByLabel(/Read-only/).check();
    const old = await createKey(page);
    expect((await callApi(old.key)).status).toBe(200);
    const write = await fetch(`${otherReplica}/v1/pets`, { method: 'POST', headers: { authorization: `Bearer ${old.key}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Rex', categoryId: 1 }) });
    expect(write.status).toBe(403);
    expect(((await write.json()) as { message: string }).message).toMatch(/^This API key is read-only/);
    const oldRow = page.locator(`tr[data-key-id="${old.keyId}"]`);
    await expect(oldRow.textContent()).resolves.toMatch(/Status dashboard.*Read-only.*2999-01-31 12:30 UTC/s);

    // Roll it with a grace period of a few seconds.
    await oldRow.getByRole('link', { name: 'Roll…' }).click();
    await expect(page.locator('h1').textContent()).resolves.toContain(old.keyId);
    await page.getByLabel('Grace period', { exact: true }).fill('4');
    await page.getByLabel('Unit of the grace period').selectOption('seconds');
    await page.getByRole('button', { name: 'Roll this key' }).click();
    const rolledAt = Date.now();
    const newKey = (await page.locator('#new-key').textContent())!;
    const newKeyId = (await page.locator('section.new-key').getAttribute('data-key-id'))!;
    expect(newKey).toMatch(/^ask_live_[0-9A-Za-z]{28}$/);
    expect(newKeyId).not.toBe(old.keyId);
    await expect(page.locator('#new-key-curl').textContent()).resolves.toBe(`curl -i -H "Authorization: Bearer ${newKey}" ${portal}/v1/pets`);
    await expect(page.locator('.replaces').textContent()).resolves.toContain(`It replaces key ${old.keyId}, which keeps working until`);
    await expect(page.getByRole('button', { name: 'Copy key' }).isVisible()).resolves.toBe(true);

    // Both keys work during the grace period; the new one is read-only too.
    expect((await callApi(old.key)).status).toBe(200);
    expect((await callApi(newKey)).status).toBe(200);
    expect((await fetch(`${otherReplica}/v1/pets`, { method: 'POST', headers: { authorization: `Bearer ${newKey}` } })).status).toBe(403);
    expect(Date.now() - rolledAt).toBeLessThan(3_500);

    // Then the old key stops, on the other replica, with a message that names the new key's id. (Waited
    // for, not polled: the account is on the Free plan's 60 requests a minute.)
    const graceEnds = Date.parse((await page.locator('.replaces time').getAttribute('datetime'))!);
    expect(graceEnds - rolledAt).toBeLessThanOrEqual(4_000);
    await new Promise((resolve) => setTimeout(resolve, graceEnds - Date.now() + 20));
    const stopped = await callApi(old.key);
    expect(stopped.status).toBe(401);
    const refused = (await stopped.json()) as { message: string };
    expect(refused.message).toContain(`its replacement is key ${newKeyId}`);
    expect(refused.message).not.toContain(newKey);
    expect((await callApi(newKey)).status).toBe(200);

    // The list says what happened, and never shows the new key again.
    await page.goto(`${portal}/portal`);
    expect(await page.content()).not.toContain(newKey);
    await expect(oldRow.getAttribute('class')).resolves.toBe('expired');
    await expect(oldRow.textContent()).resolves.toContain(`Replaced by ${newKeyId}`);
    await expect(page.locator(`tr[data-key-id="${newKeyId}"]`).textContent()).resolves.toMatch(/Status dashboard.*Read-only.*never/s);
    expect(problems).toEqual([]);
    await context.close();
  });

  describe('a page on another origin', () => {
    let evil: Server;
    let evilOrigin: string;
    let evilPage = '';

    beforeAll(async () => {
      evil = createServer((_req, res) => {
        res.setHeader('Content-Type', 'text/html');
        res.end(evilPage);
      });
      await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
      // Another port of the same host: another origin, but the same site, so the browser even sends the
      // SameSite=Lax session cookie along. The origin check and the token are what must stop it.
      evilOrigin = `http://127.0.0.1:${(evil.address() as AddressInfo).port}`;
    });

    afterAll(() => new Promise<void>((resolve) => evil.close(() => resolve())));

    it('when it posts a form or sends a fetch to the portal, even with a stolen token, then the portal refuses and nothing changes', async () => {
      const { context, page } = await newPage();
      await signUp(page);
      const token = await page.locator('input[name="_csrf"]').first().inputValue();
      const keyRows = async () => {
        await page.goto(`${portal}/portal`);
        return page.locator('tr[data-key-id]').count();
      };

      // A form that posts itself, without the token (which the attacker cannot read).
      const attacker = await context.newPage();
      evilPage = `<form id="f" method="post" action="${portal}/portal/keys"></form><script>document.getElementById('f').submit()</script>`;
      await attacker.goto(evilOrigin);
      await attacker.waitForURL(`${portal}/portal/keys`);
      await expect(attacker.locator('[role="alert"]').textContent()).resolves.toContain('cross-site request protection');

      // The same form with the session's real token (as if it had leaked): the Origin check refuses it.
      evilPage = `<form id="f" method="post" action="${portal}/portal/keys"><input name="_csrf" value="${token}"></form><script>document.getElementById('f').submit()</script>`;
      await attacker.goto(evilOrigin);
      await attacker.waitForURL(`${portal}/portal/keys`);
      await expect(attacker.locator('[role="alert"]').textContent()).resolves.toContain('did not come from a page of the portal');

      // A fetch (no-cors, cookies included): the answer is unreadable to the attacker, and nothing happens.
      evilPage = `<script>fetch(${JSON.stringify(`${portal}/portal/keys`)}, { method: 'POST', mode: 'no-cors', credentials: 'include', body: new URLSearchParams({ _csrf: ${JSON.stringify(token)} }) }).then(() => { document.title = 'sent'; }, () => { document.title = 'failed'; });</script>`;
      await attacker.goto(evilOrigin);
      await waitFor(async () => (await attacker.title()) !== '', 5_000, "the attacker's fetch to settle");

      expect(await keyRows()).toBe(0);
      // The portal's own button, in the same browser, works.
      await createKey(page);
      expect(await keyRows()).toBe(1);
      await context.close();
    });
  });

  it("when a second account signs up, then it sees none of the first one's keys and cannot revoke them", async () => {
    const first = await newPage();
    await signUp(first.page);
    const { key, keyId } = await createKey(first.page);

    const second = await newPage();
    await signUp(second.page);
    expect(await second.page.content()).not.toContain(keyId);
    await expect(second.page.locator('tr[data-key-id]').count()).resolves.toBe(0);

    const response = await second.page.goto(`${portal}/portal/keys/${keyId}/revoke`);
    expect(response!.status()).toBe(404);
    await expect(second.page.locator('[role="alert"]').textContent()).resolves.toBe(`Your account has no key with id "${keyId}".`);

    // A revocation with the second account's own valid session and token: refused as unknown.
    await second.page.goto(`${portal}/portal`);
    const status = await second.page.evaluate(`(async () => {
      const csrf = document.querySelector('input[name="_csrf"]').value;
      const answer = await fetch('/portal/keys/${keyId}/revoke', { method: 'POST', body: new URLSearchParams({ _csrf: csrf }) });
      return answer.status;
    })()`);
    expect(status).toBe(404);
    expect((await callApi(key)).status).toBe(200);
    expect((await callApi(key, portal)).status).toBe(200);
    expect([...first.problems, ...second.problems]).toEqual([]);
    await Promise.all([first.context.close(), second.context.close()]);
  });
});
