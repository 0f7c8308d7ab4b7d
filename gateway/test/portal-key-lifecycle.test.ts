import request from 'supertest';
import { ADMIN_TOKEN } from './support/gateway';
import { accountIdOn, usePortalGateways } from './support/portal';
import { csrfTokenIn } from './support/portal-visitor';

/** A key's life on the dashboard beyond create and revoke: its name, read-only access, expiry, and rolling. */

const portal = usePortalGateways();
const { signedUp } = portal;

describe('key lifecycle: name, read-only, expiry, rolling', () => {
  const api = (key: string, method: 'get' | 'post' = 'get') => request(portal.gateway.publicApp)[method]('/v1/store/inventory').set('Authorization', `Bearer ${key}`);
  const rowOf = (page: string, keyId: string) => new RegExp(`<tr data-key-id="${keyId}"[\\s\\S]*?</tr>`).exec(page)?.[0] ?? '';

  it('when a named read-only key with an expiry is created, then the list shows all three and the API refuses its writes', async () => {
    const { browser } = await signedUp();
    const { response, key, keyId } = await browser.createKey({ name: 'Grafana <board>', access: 'read-only', expiresAt: '2999-01-31T12:30' });
    expect(response.status).toBe(201);
    const row = rowOf((await browser.get('/portal')).text, keyId);
    expect(row).toContain('Grafana &lt;board&gt;');
    expect(row).toContain('data-access="read-only">Read-only<');
    expect(row).toContain('<time datetime="2999-01-31T12:30:00.000Z">2999-01-31 12:30 UTC</time>');
    expect(row).toContain(`href="/portal/keys/${keyId}/roll"`);
    expect((await api(key)).status).toBe(501);
    expect((await api(key, 'post')).status).toBe(403);
    const audit = await request(portal.gateway.adminApp).get(`/admin/audit?account=${accountIdOn((await browser.get('/portal')).text)}`).set('Authorization', `Bearer ${ADMIN_TOKEN}`);
    expect(audit.body[0]).toMatchObject({ actor: expect.stringMatching(/^portal:acct_/), action: 'key.created', after: { name: 'Grafana <board>', access: 'read-only', expiresAt: '2999-01-31T12:30:00.000Z' } });
  });

  it.each([
    ['an expiry in the past', { expiresAt: '2001-01-01T00:00' }, 'The expiry must be in the future (times are UTC).'],
    ['an expiry that is not a date and time', { expiresAt: 'next week' }, 'Enter the expiry as a date and a time (UTC)'],
    ['an impossible date', { expiresAt: '2999-02-30T00:00' }, 'Enter the expiry as a date and a time (UTC)'],
    ['a name of 101 characters', { name: 'n'.repeat(101) }, 'at most 100 characters'],
    ['another access value', { access: 'admin' }, 'may only be &quot;read-only&quot;'],
  ])('when a key is asked for with %s, then 400 with the reason on the dashboard, and no key', async (_what, fields, message) => {
    const { browser } = await signedUp();
    const { response } = await browser.createKey(fields);
    expect(response.status).toBe(400);
    expect(response.text).toContain(message);
    expect(response.text).toContain('No keys yet.');
  });

  it('when a key is rolled with a grace period, then the new key is shown once with its curl line, both work, and the list says which replaced which', async () => {
    const { browser } = await signedUp();
    const old = await browser.createKey({ name: 'Exporter', access: 'read-only' });
    const page = await browser.get(`/portal/keys/${old.keyId}/roll`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('<label for="grace">Grace period</label>');
    expect(page.text).toMatch(/<option value="days" selected>days<\/option>/);
    const rolled = await browser.post(`/portal/keys/${old.keyId}/roll`, { _csrf: csrfTokenIn(page.text), grace: '2', graceUnit: 'hours' });
    expect(rolled.status).toBe(201);
    const newKey = /<code id="new-key" class="secret">([^<]+)<\/code>/.exec(rolled.text)![1]!;
    const newKeyId = /<section class="card new-key"[^>]*data-key-id="(key_\w+)"/.exec(rolled.text)![1]!;
    expect(rolled.text).toContain(`curl -i -H &quot;Authorization: Bearer ${newKey}&quot; http://portal.test/v1/pets`);
    expect(rolled.text).toMatch(new RegExp(`It replaces key <code>${old.keyId}</code>, which keeps working until <time datetime="([^"]+)">`));
    const graceEnds = Date.parse(/which keeps working until <time datetime="([^"]+)">/.exec(rolled.text)![1]!);
    expect(graceEnds - Date.now()).toBeGreaterThan(7_100_000);
    expect(graceEnds - Date.now()).toBeLessThanOrEqual(7_200_000);

    const dashboard = (await browser.get('/portal')).text;
    expect(dashboard).not.toContain(newKey);
    expect(rowOf(dashboard, old.keyId)).toContain(`Replaced by <code>${newKeyId}</code>`);
    expect(rowOf(dashboard, old.keyId)).not.toContain('/roll"');
    expect(rowOf(dashboard, newKeyId)).toContain('Exporter');
    expect(rowOf(dashboard, newKeyId)).toContain('data-access="read-only"');
    expect((await api(old.key)).status).toBe(501);
    expect((await api(newKey)).status).toBe(501);
    expect((await api(newKey, 'post')).status).toBe(403);

    const again = await browser.post(`/portal/keys/${old.keyId}/roll`, { _csrf: csrfTokenIn(dashboard), grace: '0', graceUnit: 'seconds' });
    expect(again.status).toBe(409);
    expect(again.text).toContain(`was already rolled: its replacement is key ${newKeyId}`);
    expect((await browser.get(`/portal/keys/${old.keyId}/roll`)).text).toContain(`This key was already rolled: its replacement is ${newKeyId}.`);
  });

  it('when a key is rolled with no grace period, then the old key is refused at once, with a message naming the new key, and its row says it expired', async () => {
    const { browser } = await signedUp();
    const old = await browser.createKey();
    expect((await api(old.key)).status).toBe(501);
    const rolled = await browser.post(`/portal/keys/${old.keyId}/roll`, { _csrf: await browser.tokenFrom('/portal'), grace: '0', graceUnit: 'days' });
    expect(rolled.status).toBe(201);
    const newKeyId = /<section class="card new-key"[^>]*data-key-id="(key_\w+)"/.exec(rolled.text)![1]!;
    const refused = await api(old.key);
    expect(refused.status).toBe(401);
    expect(refused.body.message).toContain(`its replacement is key ${newKeyId}`);
    const row = rowOf((await browser.get('/portal')).text, old.keyId);
    expect(row).toContain('class="expired"');
    expect(row).toContain('Expired');
  });

  it.each([
    ['more than 7 days', { grace: '8', graceUnit: 'days' }, 'from 0 seconds to 7 days'],
    ['no number', { grace: 'soon', graceUnit: 'hours' }, 'whole number of seconds, minutes, hours or days'],
    ['an unknown unit', { grace: '1', graceUnit: 'weeks' }, 'whole number of seconds, minutes, hours or days'],
  ])('when a roll asks for %s, then 400 with the reason, and nothing is rolled', async (_what, fields, message) => {
    const { browser } = await signedUp();
    const old = await browser.createKey();
    const refused = await browser.post(`/portal/keys/${old.keyId}/roll`, { _csrf: await browser.tokenFrom('/portal'), ...fields });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain(message);
    expect(rowOf(refused.text, old.keyId)).toContain(`href="/portal/keys/${old.keyId}/roll"`);
  });

  it("when another account asks for a key's roll page or rolls it, then it does not exist for them, and nothing is rolled", async () => {
    const owner = await signedUp();
    const { keyId } = await owner.browser.createKey();
    const intruder = await signedUp();
    expect((await intruder.browser.get(`/portal/keys/${keyId}/roll`)).status).toBe(404);
    const post = await intruder.browser.post(`/portal/keys/${keyId}/roll`, { _csrf: await intruder.browser.tokenFrom('/portal'), grace: '0', graceUnit: 'seconds' });
    expect(post.status).toBe(404);
    expect(rowOf((await owner.browser.get('/portal')).text, keyId)).toContain('/roll"');
  });

  it('when a roll is posted without the session token or from another origin, then it is refused and nothing is rolled', async () => {
    const { browser } = await signedUp();
    const { keyId } = await browser.createKey();
    expect((await browser.post(`/portal/keys/${keyId}/roll`, { grace: '0', graceUnit: 'seconds' })).status).toBe(403);
    expect((await browser.post(`/portal/keys/${keyId}/roll`, { _csrf: await browser.tokenFrom('/portal'), grace: '0', graceUnit: 'seconds' }, { Origin: 'https://evil.example' })).status).toBe(403);
    expect(rowOf((await browser.get('/portal')).text, keyId)).toContain('/roll"');
  });

  it('when the account holds the most active keys and some expire, then the expired ones no longer count: a new key can be made', async () => {
    const { browser } = await signedUp();
    const expiresAt = new Date(Date.now() + 3_000).toISOString().slice(0, 19); // a datetime-local value, to the second
    for (let i = 0; i < 10; i += 1) expect((await browser.createKey({ expiresAt })).response.status).toBe(201);
    expect((await browser.createKey()).response.status).toBe(409);
    await new Promise((resolve) => setTimeout(resolve, Date.parse(`${expiresAt}Z`) - Date.now() + 10));
    expect((await browser.createKey()).response.status).toBe(201);
  });
});
