import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import type { Browser, Page } from 'playwright-core';
import { createLogger } from '../../shared/src/logger';
import { CONSOLE_CSP } from '../src/admin/console';
import { PLAN_NAMES } from '../src/accounts/types';
import { nextLinkTarget } from '../../shared/src/link-header';
import { loadGatewayConfig } from '../src/config';
import { createGateway, type Gateway } from '../src/gateway';
import { describeIfBrowser, launchBrowser } from '../../test/helpers/browser';

/**
 * The ops console on a real gateway (`createGateway`, in-process store, the admin app on an
 * ephemeral port), driven in headless Chromium as an operator would: sign in, search, open an
 * account, change its plan, revoke a key, lift a ban, read the usage board and the audit trail.
 */

const ADMIN = 'console-admin-token-0123456789';
const ALICE = 'console-alice-token-0123456789';

let gateway: Gateway;
let server: Server;
let consoleUrl: string;

beforeAll(async () => {
  const config = loadGatewayConfig({
    INTERNAL_JWT_SECRET: 'console-test-internal-secret-0123456789',
    ADMIN_TOKEN: ADMIN,
    ADMIN_TOKENS: `alice:${ALICE}`,
    PETS_URL: 'http://127.0.0.1:9', // never reached: the tests only call /v1/openapi.json
    BAN_THRESHOLD: '2',
  });
  gateway = await createGateway(config, { logger: createLogger('console-test', 'silent') });
  await new Promise<void>((resolve) => {
    server = gateway.adminApp.listen(0, '127.0.0.1', () => resolve());
  });
  consoleUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/console`;
});

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await gateway?.close();
});

async function admin<T = Record<string, unknown>>(method: 'get' | 'post' | 'patch', path: string, body?: object): Promise<T> {
  const call = request(gateway.adminApp)[method](path).set('Authorization', `Bearer ${ADMIN}`);
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
  for (let i = 0; i < count; i++) statuses.push((await request(gateway.publicApp).get(path).set('Authorization', `Bearer ${key}`)).status);
  return statuses;
}

describe('ops console over HTTP', () => {
  it('when /console and its files are asked for on the admin port, then they come with a CSP that allows no inline script', async () => {
    const page = await request(gateway.adminApp).get('/console');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['content-security-policy']).toBe(CONSOLE_CSP);
    expect(CONSOLE_CSP).toContain("script-src 'self'");
    expect(CONSOLE_CSP).not.toContain('unsafe-inline');
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.text).toContain('<script type="module" src="/console/console.js"></script>');
    expect(page.text).not.toMatch(/<script>|<script type="module">|\son[a-z]+=|style=/);
    // Both plan menus (the filter and the account's form) list every plan, from the one list.
    for (const plan of PLAN_NAMES) expect(page.text.split(`<option value="${plan}">`)).toHaveLength(3);
    const script = await request(gateway.adminApp).get('/console/console.js');
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(script.text).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(/);
    expect((await request(gateway.adminApp).get('/console/console.css')).headers['content-type']).toBe('text/css; charset=utf-8');
    expect((await request(gateway.adminApp).post('/console')).status).toBe(405);
    expect((await request(gateway.adminApp).get('/console/other.js')).status).toBe(404);
  });

  it("when the console asks for an account's chart and its Link parsing, then the portal's chart (with a token only) and the CLI's parser", async () => {
    const account = await admin<{ id: string }>('post', '/admin/accounts', { name: 'Charted', plan: 'free' });
    expect((await request(gateway.adminApp).get(`/admin/accounts/${account.id}/history.svg`)).status).toBe(401);
    const chart = await request(gateway.adminApp).get(`/admin/accounts/${account.id}/history.svg`).set('Authorization', `Bearer ${ADMIN}`).buffer(true);
    expect(chart.status).toBe(200);
    expect(chart.headers['content-type']).toBe('image/svg+xml; charset=utf-8');
    // A document of its own (the console parses it as XML): the SVG namespace must be declared.
    expect(String(chart.body)).toContain('<svg class="usage-chart" xmlns="http://www.w3.org/2000/svg"');
    expect(String(chart.body)).toContain('data-days="30"');
    expect((await request(gateway.adminApp).get('/admin/accounts/acct_AAAAAAAAAAAAAAAAAAAA/history.svg').set('Authorization', `Bearer ${ADMIN}`)).status).toBe(404);

    const module = await request(gateway.adminApp).get('/console/link-header.js');
    expect(module.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(module.text).toMatch(/^export function nextLinkTarget\(/);
    const served = new Function(`${module.text.replace(/^export /, '')}; return nextLinkTarget;`)() as typeof nextLinkTarget;
    for (const header of ['</admin/accounts?cursor=abc>; rel="next"', '</a?cursor=0>; rel="prev", </a?cursor=2>; rel=next', '</a>; rel="prev"', null]) {
      expect(served(header)).toBe(nextLinkTarget(header));
    }
  });

  it('when /console is asked for on the public port, then 404: the console lives on the admin port only', async () => {
    for (const path of ['/console', '/console/console.js', '/console/console.css']) {
      const res = await request(gateway.publicApp).get(path);
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('not_found');
    }
  });
});

describeIfBrowser()('ops console in Chromium', () => {
  let browser: Browser;
  let acme: { id: string };
  let key: { id: string; key: string };
  let spare: { id: string; key: string };

  beforeAll(async () => {
    browser = await launchBrowser();
    acme = await admin('post', '/admin/accounts', { name: 'Acme Corp', plan: 'enterprise', perMinute: 3, perDay: 1_000 });
    await admin('post', '/admin/accounts', { name: 'Globex', plan: 'free' });
    await admin('post', '/admin/accounts', { name: 'Initech', plan: 'pro' });
    key = await admin('post', `/admin/accounts/${acme.id}/keys`);
    spare = await admin('post', `/admin/accounts/${acme.id}/keys`);
    // 3 accepted, then refused until the second refusal bans the key.
    expect(await publicRequests(key.key, 5)).toEqual([200, 200, 200, 429, 429]);
    await gateway.usage.flush();
  });

  afterAll(async () => {
    await browser?.close();
  });

  /** A fresh tab that fails the test on any script error or CSP violation. */
  async function openConsole(): Promise<{ page: Page; problems: string[] }> {
    const context = await browser.newContext();
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

  it('when a wrong token is given, then it is refused and nothing but the sign-in shows', async () => {
    const { page, problems } = await openConsole();
    await signIn(page, 'not-the-token');
    await page.getByText('That admin token was refused.').waitFor();
    expect(await page.locator('#accounts-view').isHidden()).toBe(true);
    expect(await page.evaluate('sessionStorage.length')).toBe(0);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('when an operator signs in, searches and opens an account, then they see its quotas, usage, 30-day chart and keys', async () => {
    const { page, problems } = await openConsole();
    await signIn(page, ALICE);
    await page.getByText('Signed in as').waitFor();
    expect(await page.locator('#actor').textContent()).toBe('alice');
    await page.locator('#accounts-table tbody tr').nth(2).waitFor();
    expect(await page.locator('#accounts-table tbody tr').count()).toBeGreaterThanOrEqual(3);

    await page.getByLabel('Name or email').fill('ACME');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForFunction("document.querySelectorAll('#accounts-table tbody tr').length === 1");
    await page.getByRole('link', { name: 'Acme Corp' }).click();

    await page.getByRole('heading', { name: 'Acme Corp' }).waitFor();
    const facts = await page.locator('#account-facts').textContent();
    expect(facts).toContain('3 (override)');
    expect(facts).toContain('1,000 (override)');
    expect(await page.locator('#account-usage').textContent()).toContain('3 of 3');
    const chart = page.locator('#history-chart svg');
    expect(await chart.getAttribute('data-total')).toBe('3');
    expect(await chart.locator('rect.bar').count()).toBe(30);
    expect(await chart.locator('rect.bar.today').getAttribute('data-accepted')).toBe('3');
    // The portal's chart, drawn by the gateway for both.
    expect(await chart.getAttribute('class')).toBe('usage-chart');
    expect(await chart.locator('title').first().textContent()).toMatch(/^Accepted requests per UTC day, \d{4}-\d\d-\d\d to \d{4}-\d\d-\d\d$/);
    expect(await chart.locator('desc').textContent()).toMatch(/^3 accepted requests over 30 days/);
    expect(await keyRow(page, key.id).textContent()).toContain(`ask_live_…${key.key.slice(-4)}`);
    expect(await keyRow(page, key.id).textContent()).toContain('banned until');
    expect(await page.content()).not.toContain(key.key);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('when the operator changes the plan, revokes a key and lifts a ban, then each takes effect and its audit entry appears under their name', async () => {
    const { page, problems } = await openConsole();
    await signIn(page, ALICE);
    await page.goto(`${consoleUrl}#account/${acme.id}`);
    await page.getByRole('heading', { name: 'Acme Corp' }).waitFor();

    await page.getByRole('combobox', { name: 'Plan', exact: true }).selectOption('enterprise');
    await page.getByLabel(/Per-minute override/).fill('500');
    await page.getByLabel(/Per-day override/).fill('50000');
    await page.getByRole('button', { name: 'Save plan and quotas' }).click();
    await page.getByText('Plan and quotas saved.').waitFor();
    expect(await page.locator('#account-facts').textContent()).toContain('50,000 (override)');
    expect((await admin<{ perDay: number }>('get', `/admin/accounts/${acme.id}`)).perDay).toBe(50_000);
    const auditRows = page.locator('#account-audit-table tbody tr');
    expect(await auditRows.first().textContent()).toMatch(/alice.*account\.updated.*perMinute: 3, perDay: 1000.*perMinute: 500, perDay: 50000/);

    await keyRow(page, key.id).getByRole('button', { name: 'Lift ban' }).click();
    await page.getByText(`Ban of ${key.id} lifted.`).waitFor();
    expect(await keyRow(page, key.id).textContent()).toContain('active');
    expect(await auditRows.first().textContent()).toMatch(new RegExp(`alice.*ban\\.lifted.*${key.id}`));
    expect(await publicRequests(key.key, 1)).toEqual([200]);

    expect(await publicRequests(spare.key, 1, '/v1/pets')).toEqual([502]);
    await keyRow(page, spare.id).getByRole('button', { name: 'Revoke' }).click();
    await page.getByText(`Key ${spare.id} revoked.`).waitFor();
    expect(await keyRow(page, spare.id).textContent()).toContain('revoked');
    expect(await keyRow(page, spare.id).getByRole('button').count()).toBe(0);
    expect(await auditRows.first().textContent()).toMatch(new RegExp(`alice.*key\\.revoked.*${spare.id}`));
    expect(await publicRequests(spare.key, 1, '/v1/pets')).toEqual([401]);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('when the operator creates a named read-only key with an expiry and rolls it, then the keys table and the API follow, and the audit names them', async () => {
    const { page, problems, account: globex } = await openNewAccount('Globex Keys');

    await page.getByLabel(/^Key name/).fill('Reporting');
    await page.getByLabel(/Expires at, UTC/).fill('2999-01-31T12:30:00');
    await page.getByLabel(/Read-only/).check();
    await page.getByRole('button', { name: 'Create a key' }).click();
    await page.getByText(/^Key key_\w+ created\.$/).waitFor();
    const created = (await page.locator('#new-key-value').textContent())!;
    const [listed] = await admin<Array<{ id: string; name: string; access: string; expiresAt: string }>>('get', `/admin/accounts/${globex.id}/keys`);
    expect(listed).toMatchObject({ name: 'Reporting', access: 'read-only', expiresAt: '2999-01-31T12:30:00.000Z' });
    expect(await keyRow(page, listed!.id).textContent()).toMatch(/Reporting.*read-only.*2999-01-31 12:30:00.*active/);
    expect(await publicRequests(created, 1, '/v1/pets')).toEqual([502]);
    expect((await request(gateway.publicApp).post('/v1/pets').set('Authorization', `Bearer ${created}`)).status).toBe(403);

    await keyRow(page, listed!.id).getByRole('button', { name: 'Roll…' }).click();
    await page.getByLabel(/^Grace period/).fill('0');
    await page.getByLabel('Unit of the grace period').selectOption({ label: 'seconds' });
    await page.getByRole('button', { name: 'Roll key' }).click();
    await page.getByText(new RegExp(`^Key ${listed!.id} rolled: the new key is key_\\w+\\.$`)).waitFor();
    const rolled = (await page.locator('#new-key-value').textContent())!;
    expect(rolled).not.toBe(created);
    expect(await page.locator('#new-key-replaces').textContent()).toContain(`It replaces ${listed!.id}`);
    const newKeyId = (await admin<Array<{ id: string }>>('get', `/admin/accounts/${globex.id}/keys`))[1]!.id;
    expect(await keyRow(page, listed!.id).textContent()).toContain(`expired, replaced by ${newKeyId}`);
    expect(await keyRow(page, listed!.id).getByRole('button').count()).toBe(0);
    expect(await keyRow(page, newKeyId).textContent()).toMatch(/Reporting.*read-only.*never.*active/);

    const refused = await request(gateway.publicApp).get('/v1/pets').set('Authorization', `Bearer ${created}`);
    expect(refused.status).toBe(401);
    expect(refused.body.message).toContain(`its replacement is key ${newKeyId}`);
    expect(await publicRequests(rolled, 1, '/v1/pets')).toEqual([502]);
    const auditRows = page.locator('#account-audit-table tbody tr');
    expect(await auditRows.first().textContent()).toMatch(new RegExp(`alice.*key\\.rolled.*${listed!.id}.*replacedBy: ${newKeyId}`));
    expect(await auditRows.nth(1).textContent()).toMatch(new RegExp(`alice.*key\\.created.*${newKeyId}.*rolledFrom: ${listed!.id}`));
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('when the operator asks for a key that expires in the past, then the form says why and no key is made', async () => {
    const { page, problems, account: initech } = await openNewAccount('Initech Keys');
    await page.getByLabel(/Expires at, UTC/).fill('2001-01-01T00:00:00');
    await page.getByRole('button', { name: 'Create a key' }).click();
    await page.getByText(/^expiresAt must be in the future/).waitFor();
    expect(await admin('get', `/admin/accounts/${initech.id}/keys`)).toEqual([]);
    expect(problems.filter((problem) => !/status of 400/.test(problem))).toEqual([]);
    await page.context().close();
  });

  it('when the operator opens the usage board and the audit trail, then Acme is on them', async () => {
    const { page, problems } = await openConsole();
    await signIn(page, ALICE);
    await page.getByRole('link', { name: 'Usage' }).click();
    await page.getByLabel('Window').selectOption('day');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.locator('#usage-table tbody tr').first().waitFor();
    expect(await page.locator('#usage-table tbody').textContent()).toContain('Acme Corp');
    expect(await page.locator('#refused-table tbody tr').first().textContent()).toMatch(new RegExp(`${key.id}.*Acme Corp.*2`));

    await page.getByRole('link', { name: 'Audit trail' }).click();
    await page.locator('#audit-table tbody tr').first().waitFor();
    const trail = await page.locator('#audit-table tbody').textContent();
    expect(trail).toMatch(new RegExp(`admin\\s*account\\.created\\s*${acme.id}`));

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(await page.evaluate('sessionStorage.length')).toBe(0);
    expect(problems).toEqual([]);
    await page.context().close();
  });
});
