import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import request from 'supertest';
import type { Gateway } from '../../gateway/src/gateway';
import { ADMIN_TOKEN, startGateway } from '../../gateway/test/support/gateway';
import { launchBrowser } from './browser';

/** A named operator's token (ADMIN_TOKENS): the console signs in with it, and the audit trail names "alice". */
export const ALICE = 'console-alice-token-0123456789';

/**
 * The ops console on a real gateway (`createGateway`, in-process store, the admin app on an
 * ephemeral port) and headless Chromium to drive it as an operator would; both for the enclosing
 * `describeIfBrowser()`, inside which this is called (so that no browser starts where none is installed).
 * Keys are banned at the second refusal (BAN_THRESHOLD=2); webhook endpoints may be http://127.0.0.1 (WEBHOOK_ALLOW_PRIVATE).
 */
export function useOpsConsole() {
  let gateway: Gateway | undefined;
  let server: Server | undefined;
  let browser: Browser | undefined;
  let consoleUrl = '';

  beforeAll(async () => {
    gateway = await startGateway({ ADMIN_TOKENS: `alice:${ALICE}`, BAN_THRESHOLD: '2', WEBHOOK_ALLOW_PRIVATE: 'true' });
    await new Promise<void>((resolve) => {
      server = gateway!.adminApp.listen(0, '127.0.0.1', () => resolve());
    });
    consoleUrl = `http://127.0.0.1:${(server!.address() as AddressInfo).port}/console`;
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
    await gateway?.close();
  });

  const started = (): { gateway: Gateway; browser: Browser } => {
    if (!gateway || !browser) throw new Error('the ops console fixture starts its gateway and browser in beforeAll');
    return { gateway, browser };
  };

  /** A call to the admin API with the admin token; its body, or an error if it was refused. */
  async function admin<T = Record<string, unknown>>(method: 'get' | 'post' | 'patch', path: string, body?: object): Promise<T> {
    const call = request(started().gateway.adminApp)[method](path).set('Authorization', `Bearer ${ADMIN_TOKEN}`);
    const res = await (body ? call.send(body) : call);
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
    return res.body as T;
  }

  /**
   * Public requests with a key, through the real pipeline. The interface description needs no upstream
   * (but no key either); `/v1/pets` needs a key, and answers 502 past it since no pets-service runs here.
   */
  async function publicRequests(key: string, count: number, path = '/v1/openapi.json'): Promise<number[]> {
    const statuses: number[] = [];
    for (let i = 0; i < count; i++) statuses.push((await request(started().gateway.publicApp).get(path).set('Authorization', `Bearer ${key}`)).status);
    return statuses;
  }

  /** A fresh tab that fails the test on any script error or CSP violation. */
  async function openConsole(): Promise<{ page: Page; problems: string[] }> {
    const context = await started().browser.newContext();
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('console', (message) => {
      // A refused token is an expected 401 in the network log; anything else is a problem.
      if (message.type() === 'error' && !/status of 401/.test(message.text())) problems.push(message.text());
    });
    page.on('dialog', (dialog) => void dialog.accept());
    await page.goto(consoleUrl);
    return { page, problems };
  }

  async function signIn(page: Page, token: string) {
    await page.getByLabel('Admin token').fill(token);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  const keyRow = (page: Page, id: string) => page.locator(`#keys-table tr[data-key-id="${id}"]`);

  /** A new account of its own, opened in the console by alice. */
  async function openNewAccount(name: string): Promise<{ page: Page; problems: string[]; account: { id: string } }> {
    const { page, problems } = await openConsole();
    await signIn(page, ALICE);
    const account = await admin<{ id: string }>('post', '/admin/accounts', { name, plan: 'pro' });
    await page.goto(`${consoleUrl}#account/${account.id}`);
    await page.getByRole('heading', { name }).waitFor();
    return { page, problems, account };
  }

  return {
    get gateway(): Gateway {
      return started().gateway;
    },
    get consoleUrl(): string {
      return consoleUrl;
    },
    admin,
    publicRequests,
    openConsole,
    signIn,
    keyRow,
    openNewAccount,
  };
}
