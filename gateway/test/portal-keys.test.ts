import request from 'supertest';
import { ADMIN_TOKEN } from './support/gateway';
import { accountIdOn, usePortalGateways } from './support/portal';
import { csrfTokenIn } from './support/portal-visitor';

/** Keys made and revoked on the dashboard, and how many an account may hold and make. */

const portal = usePortalGateways();
const { signedUp } = portal;

describe('keys', () => {
  it('when a key is created, then it is shown once with a curl line, listed masked, and works on the API until revoked', async () => {
    const { browser } = await signedUp();
    const { response, key, keyId } = await browser.createKey();
    expect(response.status).toBe(201);
    expect(key).toMatch(/^ask_[a-z]+_[0-9A-Za-z]{28}$/);
    expect(response.text).toContain(`curl -i -H &quot;Authorization: Bearer ${key}&quot; http://portal.test/v1/pets`);
    expect(response.text).toContain('data-copy="new-key"');
    const dashboard = (await browser.get('/portal')).text;
    expect(dashboard).not.toContain(key);
    expect(dashboard).toContain(`<code>${key.slice(0, key.lastIndexOf('_') + 1)}…${key.slice(-4)}</code>`);
    expect(dashboard).toContain(`href="/portal/keys/${keyId}/revoke"`);

    const api = () => request(portal.gateway.publicApp).get('/v1/store/inventory').set('Authorization', `Bearer ${key}`);
    expect((await api()).status).toBe(501); // authenticated and limited, then not implemented: the key works

    const confirm = await browser.get(`/portal/keys/${keyId}/revoke`);
    expect(confirm.status).toBe(200);
    expect(confirm.text).toContain('<button type="submit" class="danger">Revoke this key</button>');
    const revoked = await browser.post(`/portal/keys/${keyId}/revoke`, { _csrf: csrfTokenIn(confirm.text) });
    expect(revoked.status).toBe(303);
    expect(revoked.headers.location).toBe(`/portal?revoked=${keyId}`);
    expect((await api()).status).toBe(401);
    expect((await browser.get(`/portal?revoked=${keyId}`)).text).toContain(`Key ${keyId} is revoked`);
  });

  it("when another account asks for a key's revocation page or revokes it, then it does not exist for them and keeps working", async () => {
    const owner = await signedUp();
    const { key, keyId } = await owner.browser.createKey();
    const intruder = await signedUp();
    expect((await intruder.browser.get('/portal')).text).not.toContain(keyId);
    const page = await intruder.browser.get(`/portal/keys/${keyId}/revoke`);
    expect(page.status).toBe(404);
    expect(page.text).toContain(`Your account has no key with id &quot;${keyId}&quot;.`);
    const post = await intruder.browser.post(`/portal/keys/${keyId}/revoke`, { _csrf: await intruder.browser.tokenFrom('/portal') });
    expect(post.status).toBe(404);
    expect((await request(portal.gateway.publicApp).get('/v1/store/inventory').set('Authorization', `Bearer ${key}`)).status).toBe(501);
  });

  it('when an account holds the most active keys, then one more is refused with a message on the dashboard', async () => {
    const { browser } = await signedUp();
    for (let i = 0; i < 10; i += 1) expect((await browser.createKey()).response.status).toBe(201);
    const { response } = await browser.createKey();
    expect(response.status).toBe(409);
    expect(response.text).toContain('already has 10 active keys');
    expect(response.text).toContain('data-plan="free"');
  });

  it('when an account creates and revokes keys in a loop, then the 21st key in a day is refused on the dashboard, and no more than 20 revoked keys are kept', async () => {
    const { browser } = await signedUp();
    for (let i = 0; i < 20; i += 1) {
      const { response, keyId } = await browser.createKey();
      expect(response.status).toBe(201);
      expect((await browser.post(`/portal/keys/${keyId}/revoke`, { _csrf: await browser.tokenFrom('/portal') })).status).toBe(303);
    }
    const { response } = await browser.createKey();
    expect(response.status).toBe(429);
    expect(response.text).toContain('This account has created 20 keys in the last 24 hours, the most it may');
    const accountId = accountIdOn((await browser.get('/portal')).text);
    const keys = await request(portal.gateway.adminApp).get(`/admin/accounts/${accountId}/keys`).set('Authorization', `Bearer ${ADMIN_TOKEN}`);
    expect(keys.body.length).toBeLessThanOrEqual(20);
  });
});

describe('the key list in pages (issue 24: listings were not paged)', () => {
  const keyIdsOn = (page: string) => [...page.matchAll(/<tr data-key-id="(key_[0-9A-Za-z]{20})"/g)].map((match) => match[1]);
  const nextPageOn = (page: string) => /<a href="(\/portal\?cursor=[A-Za-z0-9_-]+)#keys-title" rel="next">Next page of keys<\/a>/.exec(page)?.[1];

  it('when an account has more keys than a page, then the dashboard shows ten, oldest first, with a "Next page of keys" link to the rest', async () => {
    const { browser } = await signedUp();
    const made: string[] = [];
    for (let i = 0; i < 10; i += 1) made.push((await browser.createKey()).keyId);
    // Ten active keys are the most: one revoked makes room for the eleventh.
    expect((await browser.post(`/portal/keys/${made[0]}/revoke`, { _csrf: await browser.tokenFrom('/portal') })).status).toBe(303);
    made.push((await browser.createKey()).keyId);
    const first = (await browser.get('/portal')).text;
    expect(keyIdsOn(first)).toEqual(made.slice(0, 10));
    const next = nextPageOn(first);
    expect(next).toBeDefined();
    const second = await browser.get(next!);
    expect(second.status).toBe(200);
    expect(keyIdsOn(second.text)).toEqual(made.slice(10));
    expect(nextPageOn(second.text)).toBeUndefined();
  });

  it('when the address carries a cursor the portal did not give out, then 400 saying so, and no keys are shown', async () => {
    const { browser } = await signedUp();
    await browser.createKey();
    for (const query of ['cursor=nonsense', 'cursor=', 'cursor=a&cursor=b', `cursor=${Buffer.from('a.1.acct_AAAAAAAAAAAAAAAAAAAA').toString('base64url')}`]) {
      const refused = await browser.get(`/portal?${query}`);
      expect(refused.status).toBe(400);
      expect(refused.text).toContain('The cursor in this address is not one the portal gave out');
      expect(keyIdsOn(refused.text)).toEqual([]);
    }
  });
});
