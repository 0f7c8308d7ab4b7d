import request from 'supertest';
import { usePortalGateways } from './support/portal';

/** The usage the portal shows: the dashboard and its JSON endpoint. */

const portal = usePortalGateways();
const { visitor, signedUp } = portal;

describe('usage', () => {
  it('when the API is called, then the usage endpoint and the dashboard give the header numbers; portal pages count for nothing', async () => {
    const { browser } = await signedUp();
    const { key } = await browser.createKey();
    for (let i = 0; i < 10; i += 1) await browser.get('/portal');
    let last: request.Response | undefined;
    for (let i = 0; i < 3; i += 1) last = await request(portal.gateway.publicApp).get('/v1/store/inventory').set('Authorization', `Bearer ${key}`);
    const usage = await browser.get('/portal/usage');
    expect(usage.status).toBe(200);
    expect(usage.body.minute).toMatchObject({ used: 3, limit: 60, remaining: 57 });
    expect(usage.body.day).toMatchObject({ used: 3, limit: 1000, remaining: 997 });
    expect(Number(last!.headers['x-ratelimit-remaining'])).toBe(57);
    const page = (await browser.get('/portal')).text;
    expect(page).toMatch(/<div class="window" data-window="minute">[\s\S]*?data-field="used">3</);
    expect(page).toMatch(/data-day="\d{4}-\d{2}-\d{2}" data-accepted="3"><title>/);
  });

  it('when the usage endpoint is called without a session or with another method, then it answers in the Error shape', async () => {
    for (const path of ['/portal/usage', '/portal/usage/']) {
      const anonymous = await visitor().get(path);
      expect(anonymous.status).toBe(401);
      expect(anonymous.body).toEqual({ code: 'unauthorized', message: expect.stringContaining('portal session'), status: 401 });
    }
    const post = await request(portal.gateway.publicApp).post('/portal/usage');
    expect(post.status).toBe(405);
    expect(post.body).toMatchObject({ code: 'method_not_allowed', status: 405 });
    expect(post.headers.allow).toBe('GET, HEAD');
  });
});
