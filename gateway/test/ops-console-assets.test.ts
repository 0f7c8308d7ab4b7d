import { readdirSync } from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { nextLinkTarget } from '../../shared/src/link-header';
import { PLAN_NAMES } from '../src/accounts/types';
import { CONSOLE_CSP, CONSOLE_MODULES } from '../src/admin/console';
import type { Gateway } from '../src/gateway';
import { ADMIN_TOKEN, startGateway } from './support/gateway';

/**
 * The ops console's page and files as the admin port serves them, in process (supertest); the
 * console driven in Chromium is an e2e test: test/e2e/ops-console/.
 */

let gateway: Gateway;

beforeAll(async () => {
  gateway = await startGateway();
});

afterAll(async () => {
  await gateway?.close();
});

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
    // Every module in the assets folder is served (none forgotten), and none writes HTML.
    const assets = readdirSync(path.join(__dirname, '../src/admin/assets')).filter((file) => file.endsWith('.js'));
    expect([...CONSOLE_MODULES].sort()).toEqual(assets.sort());
    for (const module of CONSOLE_MODULES) {
      const script = await request(gateway.adminApp).get(`/console/${module}`);
      expect({ module, status: script.status, type: script.headers['content-type'] }).toEqual({ module, status: 200, type: 'text/javascript; charset=utf-8' });
      expect(script.text).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(|new Function/);
    }
    expect((await request(gateway.adminApp).get('/console/console.css')).headers['content-type']).toBe('text/css; charset=utf-8');
    expect((await request(gateway.adminApp).post('/console')).status).toBe(405);
    expect((await request(gateway.adminApp).get('/console/other.js')).status).toBe(404);
  });

  it("when the console asks for an account's chart and its Link parsing, then the portal's chart (with a token only) and the CLI's parser", async () => {
    const account = await gateway.accounts.createAccount({ name: 'Charted', plan: 'free' });
    expect((await request(gateway.adminApp).get(`/admin/accounts/${account.id}/history.svg`)).status).toBe(401);
    const chart = await request(gateway.adminApp).get(`/admin/accounts/${account.id}/history.svg`).set('Authorization', `Bearer ${ADMIN_TOKEN}`).buffer(true);
    expect(chart.status).toBe(200);
    expect(chart.headers['content-type']).toBe('image/svg+xml; charset=utf-8');
    // A document of its own (the console parses it as XML): the SVG namespace must be declared.
    expect(String(chart.body)).toContain('<svg class="usage-chart" xmlns="http://www.w3.org/2000/svg"');
    expect(String(chart.body)).toContain('data-days="30"');
    expect((await request(gateway.adminApp).get('/admin/accounts/acct_AAAAAAAAAAAAAAAAAAAA/history.svg').set('Authorization', `Bearer ${ADMIN_TOKEN}`)).status).toBe(404);

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
