import type { Browser, Request } from 'playwright-core';
import { describeIfBrowser, launchBrowser } from '../helpers/browser';
import { startSystem, type SystemHandle } from '../helpers/system';

/**
 * `/docs` in headless Chromium, on the real system: "Try it out" sends its request to the gateway
 * that served the page (the first server of the document), not to a production address.
 */
jest.setTimeout(90_000);

describeIfBrowser()('/docs in Chromium', () => {
  let system: SystemHandle;
  let browser: Browser;

  beforeAll(async () => {
    [system, browser] = await Promise.all([startSystem(), launchBrowser()]);
  });
  afterAll(async () => {
    await browser?.close();
    await system?.stop();
  });

  it('when "Try it out" runs listPets, then the request goes to the gateway serving the page, which answers it', async () => {
    const gateway = system.gateways[0]!.url;
    const page = await browser.newPage();
    try {
      await page.goto(`${gateway}/docs/`);
      const servers = page.locator('.servers select');
      await servers.waitFor();
      expect(await servers.inputValue()).toBe('/v1');
      expect(await servers.locator('option').allTextContents()).toEqual([
        expect.stringMatching(/^\/v1/),
        expect.stringMatching(/^https:\/\/api\.animalstore\.example\/v1/),
        expect.stringMatching(/^https:\/\/staging\.api\.animalstore\.example\/v1/),
      ]);

      const operation = page.locator('#operations-pets-listPets');
      await operation.locator('.opblock-summary').click();
      await operation.getByRole('button', { name: 'Try it out' }).click();
      const sent = page.waitForRequest((req: Request) => /\/pets(\?|$)/.test(new URL(req.url()).pathname + new URL(req.url()).search));
      await operation.getByRole('button', { name: 'Execute' }).click();
      const request = await sent;
      expect(request.url()).toMatch(new RegExp(`^${gateway}/v1/pets(\\?|$)`));
      const response = await request.response();
      // No key was given: the gateway's own 401, with its rate-limit headers, proves it was the one answering.
      expect(response?.status()).toBe(401);
      expect(await response?.headerValue('x-ratelimit-limit')).toBe('60');
    } finally {
      await page.close();
    }
  });
});
