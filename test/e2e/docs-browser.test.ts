import type { Browser, Request } from 'playwright-core';
import { describeIfBrowser, launchBrowser } from '../helpers/browser';
import { startSystem, type SystemHandle } from '../helpers/system';

/**
 * `/docs` (Swagger UI) in headless Chromium, on the real system: under its Content-Security-Policy
 * (issue 17, item 9) the policy is in force, nothing on the page breaks it, and the operations still
 * render; "Try it out" sends its request to the gateway that served the page (the first server of
 * the document), not to a production address.
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

  it('when /docs is opened, then the policy is in force, no part of the page violates it, and every operation renders', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error' || /Content Security Policy/i.test(message.text())) problems.push(`console: ${message.text()}`);
    });
    page.on('requestfailed', (request) => problems.push(`failed: ${request.url()}`));
    try {
      const response = await page.goto(`${system.gateways[0]!.url}/docs`);
      expect(response!.status()).toBe(200);
      expect(response!.headers()['content-security-policy']).toContain("script-src 'self'");
      await page.locator('.opblock-summary-path').first().waitFor({ timeout: 30_000 });
      const paths = await page.locator('.opblock-summary-path, .opblock-summary-path__deprecated').allTextContents();
      expect(paths.map((path) => path.replace(/\u200b/g, ''))).toEqual(expect.arrayContaining(['/pets', '/pets/{petId}', '/store/orders']));
      expect(await page.locator('.opblock').count()).toBeGreaterThanOrEqual(4);
      // An operation opens, with its parameters and responses (Swagger UI's script at work).
      await page.locator('.opblock-get .opblock-summary').first().click();
      await page.locator('.opblock.is-open .responses-wrapper').first().waitFor({ timeout: 10_000 });
      // The page's own styles (moved out of inline blocks) apply: the hidden sprite sheet takes no room.
      const sprite = await page.locator('svg.docs-inline-1').boundingBox();
      expect(sprite?.height ?? 0).toBe(0);
      // Inline script is refused (the policy is real, not just a header): this would set a global.
      await page.addScriptTag({ content: 'window.__inlineRan = true;' }).catch(() => undefined);
      expect(await page.evaluate(() => (globalThis as unknown as { __inlineRan?: boolean }).__inlineRan ?? false)).toBe(false);
      // The one refusal expected is of that script.
      expect(problems.filter((problem) => !/Executing inline script violates|Refused to execute inline script/.test(problem))).toEqual([]);
      expect(problems.filter((problem) => /Executing inline script violates|Refused to execute inline script/.test(problem))).toHaveLength(1);
    } finally {
      await context.close();
    }
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
