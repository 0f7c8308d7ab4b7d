import request from 'supertest';
import { usePortalGateways } from './support/portal';

/** The portal's pages as any visitor gets them: headers, the environment's name, assets, and what is not the portal's. */

const portal = usePortalGateways();
const { gatewayWith, visitor } = portal;

describe('portal pages and headers', () => {
  it('when /portal is opened without a session, then the log-in form is served with a strict CSP and safe headers', async () => {
    const response = await visitor().get('/portal');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    expect(response.text).toContain('<form method="post" action="/portal/login"');
    expect(response.text).toMatch(/<label for="email">Email address<\/label>/);
    expect(response.text).toMatch(/<button type="submit">Log in<\/button>/);
    const csp = response.headers['content-security-policy'];
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['referrer-policy']).toBe('same-origin');
    expect(response.headers['x-frame-options']).toBe('DENY');
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.text).not.toMatch(/<script(?![^>]*\bsrc="\/portal\/assets\/portal\.js)/);
    expect(response.text).not.toMatch(/\sstyle=|\son[a-z]+=/i);
  });

  it('when any portal page is shown, then it names the environment it serves', async () => {
    const staging = await gatewayWith({ API_ENVIRONMENT: 'staging' });
    for (const [g, name] of [
      [portal.gateway, 'Production'],
      [staging, 'Staging'],
    ] as const) {
      const browser = visitor(g);
      for (const path of ['/portal', '/portal/signup', '/portal/nowhere']) {
        const page = (await browser.get(path)).text;
        expect(page).toContain(`data-environment="${name.toLowerCase()}"`);
        expect(page).toContain(`developer portal (${name})</title>`);
      }
    }
  });

  it('when the assets are fetched, then they come with their types, from the gateway itself', async () => {
    const page = (await visitor().get('/portal')).text;
    const script = /src="(\/portal\/assets\/portal\.js\?v=[0-9a-f]{12})"/.exec(page)![1]!;
    const js = await request(portal.gateway.publicApp).get(script);
    expect(js.status).toBe(200);
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(js.headers['cache-control']).toContain('immutable');
    const css = await request(portal.gateway.publicApp).get('/portal/assets/portal.css');
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(css.headers['cache-control']).toBe('no-cache');
    expect((await request(portal.gateway.publicApp).get('/portal/assets/secret.txt')).status).toBe(404);
  });

  it('when a path or method is not the portal\'s, then a page says so (404, 405 with Allow), never a 500', async () => {
    const browser = visitor();
    const missing = await browser.get('/portal/nowhere');
    expect(missing.status).toBe(404);
    expect(missing.text).toContain('There is no portal page at /portal/nowhere.');
    const wrong = await request(portal.gateway.publicApp).delete('/portal').set('X-Forwarded-For', browser.ip);
    expect(wrong.status).toBe(405);
    expect(wrong.headers.allow).toBe('GET, HEAD');
    const getLogout = await browser.get('/portal/logout');
    expect(getLogout.status).toBe(405);
    expect(getLogout.headers.allow).toBe('POST');
    expect((await browser.get('/portal/keys/%E0%A4%A/revoke')).status).toBe(400);
  });

  it('when the portal is looked for under /v1 or on the admin port, then it is not there', async () => {
    expect((await request(portal.gateway.publicApp).get('/v1/portal')).status).not.toBe(200);
    expect((await request(portal.gateway.adminApp).get('/portal')).status).toBe(404);
  });
});
