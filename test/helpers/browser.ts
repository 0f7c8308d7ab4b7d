import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/**
 * Headless Chromium for the page tests: Debian's `chromium` driven by playwright-core
 * (`npx playwright install` cannot download browsers on the project's machines).
 * CHROMIUM_PATH points elsewhere; `.ci/run` installs the package when it is missing.
 */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export const HOW_TO_RUN_BROWSER_TESTS = `Browser tests skipped: no Chromium at ${CHROMIUM_PATH}. Install it (apt-get install chromium) or set CHROMIUM_PATH; .ci/run installs it itself.`;

export function browserAvailable(): boolean {
  return existsSync(CHROMIUM_PATH);
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
  });
}

/** `describe` when Chromium is installed; otherwise a skip that says how to run these tests. */
export function describeIfBrowser(): jest.Describe {
  if (browserAvailable()) return describe;
  console.warn(HOW_TO_RUN_BROWSER_TESTS);
  // Skipped for a stated reason: no Chromium on this machine (see HOW_TO_RUN_BROWSER_TESTS).
  return describe.skip;
}
