import request from 'supertest';
import type { Gateway } from '../src/gateway';
import { startGateway } from './support/gateway';

/** `/docs`'s static assets: conditional and Range requests that cannot be met are client errors, in the Error shape. */
let gateway: Gateway;
beforeAll(async () => {
  gateway = await startGateway();
});
afterAll(async () => {
  await gateway.close();
});

const asset = '/docs/swagger-ui.css';

describe('/docs assets under conditional and Range requests', () => {
  it('when a Range is satisfiable, then 206 with that part', async () => {
    const res = await request(gateway.publicApp).get(asset).set('Range', 'bytes=0-9');
    expect(res.status).toBe(206);
    expect(res.headers['content-range']).toMatch(/^bytes 0-9\/\d+$/);
  });

  it('when a Range lies past the end of the file, then 416 range_not_satisfiable with the Content-Range to retry with', async () => {
    const res = await request(gateway.publicApp).get(asset).set('Range', 'bytes=99999999-');
    expect(res.status).toBe(416);
    expect(res.headers['content-range']).toMatch(/^bytes \*\/\d+$/);
    expect(res.body).toEqual({ code: 'range_not_satisfiable', message: 'The Range header asks for bytes this file does not have.', status: 416 });
  });

  it.each([
    ['If-Match', '"nope"'],
    ['If-Unmodified-Since', 'Thu, 01 Jan 1970 00:00:00 GMT'],
  ])('when %s does not hold, then 412 precondition_failed, not a 500', async (header, value) => {
    const res = await request(gateway.publicApp).get(asset).set(header, value);
    expect(res.status).toBe(412);
    expect(res.body).toEqual({ code: 'precondition_failed', message: 'A condition of the request (If-Match or If-Unmodified-Since) does not hold for this file.', status: 412 });
  });
});

describe('/docs paths and methods', () => {
  it.each(['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'] as const)('when %s is sent, then 405 method_not_allowed with Allow: GET, HEAD', async (method) => {
    const res = await request(gateway.publicApp)[method.toLowerCase() as 'post'](asset);
    expect(res.status).toBe(405);
    expect(res.headers['allow']).toBe('GET, HEAD');
    expect(res.body).toEqual({ code: 'method_not_allowed', message: `${method} is not allowed on ${asset}; use GET, HEAD.`, status: 405 });
  });

  it.each(['/docs/%2e%2e/%2e%2e/package.json', '/docs/.hidden', '/docs/%2E%2e/x'])('when the path %s holds a dot segment, then 404 not_found in the Error shape', async (path) => {
    const res = await request(gateway.publicApp).get(path);
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: 'not_found', status: 404 });
  });

  it('when the page and an asset are fetched, then they still come', async () => {
    expect((await request(gateway.publicApp).get('/docs/')).text).toContain('swagger-ui');
    expect((await request(gateway.publicApp).get(asset)).headers['content-type']).toMatch(/^text\/css/);
  });
});

describe('/docs under a Content-Security-Policy (issue 17: Swagger UI on the portal\'s origin had none)', () => {
  it('when the page or any of its files is fetched, then it carries the policy, nosniff and no framing', async () => {
    for (const path of ['/docs/', asset, '/docs/swagger-ui-init.js', '/docs/docs-page.css']) {
      const res = await request(gateway.publicApp).get(path);
      expect(res.status).toBe(200);
      const csp = res.headers['content-security-policy'];
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("style-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toContain('unsafe-inline');
      expect(csp).not.toContain('unsafe-eval');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['x-frame-options']).toBe('DENY');
    }
  });

  it('when the page is served, then it has no inline script or style: its styles come from docs-page.css', async () => {
    const page = (await request(gateway.publicApp).get('/docs/')).text;
    expect(page).not.toMatch(/<script(?![^>]*\bsrc=)/i);
    expect(page).not.toMatch(/<style|\sstyle=|\son[a-z]+=/i);
    expect(page).toContain('href="./docs-page.css"');
    const css = await request(gateway.publicApp).get('/docs/docs-page.css');
    expect(css.headers['content-type']).toMatch(/^text\/css/);
    expect(css.text).toContain('box-sizing: border-box');
    expect(css.text).toMatch(/\.docs-inline-1 \{ position:absolute;width:0;height:0 \}/);
  });
});
