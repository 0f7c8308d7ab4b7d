import { usePortalGateways } from './support/portal';
import { PortalVisitor } from './support/portal-visitor';

/** The portal's defences against cross-site request forgery: the form token, its session, and the Origin. */

const portal = usePortalGateways();
const { visitor, signedUp } = portal;

describe('cross-site request forgery', () => {
  const keysOf = async (browser: PortalVisitor) => ((await browser.get('/portal')).text.match(/<tr data-key-id=/g) ?? []).length;

  it('when a state-changing request lacks the token, has a wrong one, or comes from another origin, then it is refused and nothing changes', async () => {
    const { browser } = await signedUp();
    const token = await browser.tokenFrom('/portal');
    const attempts: Array<[Record<string, string>, Record<string, string>]> = [
      [{}, { Origin: browser.origin }],
      [{ _csrf: 'x'.repeat(43) }, { Origin: browser.origin }],
      [{ _csrf: token }, { Origin: 'https://evil.example' }],
      [{ _csrf: token }, { Origin: 'null' }],
      [{ _csrf: token }, { Referer: 'https://evil.example/page' }],
      [{ _csrf: token }, {}],
    ];
    for (const [form, headers] of attempts) {
      const response = await browser.post('/portal/keys', form, headers);
      expect(response.status).toBe(403);
      expect(response.text).toContain('cross-site request protection');
    }
    expect(await keysOf(browser)).toBe(0);
    // The same request from the portal's own page (Referer is enough when a browser sends no Origin) succeeds.
    expect((await browser.post('/portal/keys', { _csrf: token }, { Referer: `${browser.origin}/portal` })).status).toBe(201);
    expect(await keysOf(browser)).toBe(1);
  });

  it("when one session's token is used with another session, then it is refused", async () => {
    const first = await signedUp();
    const second = await signedUp();
    const foreign = await first.browser.tokenFrom('/portal');
    expect((await second.browser.post('/portal/keys', { _csrf: foreign })).status).toBe(403);
  });

  it('when a log-in form is posted without the form cookie, from another origin, or with a foreign token, then it is refused', async () => {
    const { email } = await signedUp();
    const browser = visitor();
    const token = await browser.tokenFrom('/portal/login');
    expect((await browser.post('/portal/login', { _csrf: token, email, password: 'a long enough password' }, { Origin: 'https://evil.example' })).status).toBe(403);
    const noCookie = new PortalVisitor(portal.gateway.publicApp);
    expect((await noCookie.post('/portal/login', { _csrf: token, email, password: 'a long enough password' })).status).toBe(403);
    browser.cookies.set('portal-form', 'y'.repeat(43));
    expect((await browser.post('/portal/login', { _csrf: token, email, password: 'a long enough password' })).status).toBe(403);
  });
});
