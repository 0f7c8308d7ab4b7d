import request from 'supertest';
import { createLogger } from '../../shared/src/logger';
import { loadGatewayConfig } from '../src/config';
import { createGateway, type Gateway } from '../src/gateway';
import type { PortalTuning } from '../src/portal';
import { PasswordHasher } from '../src/portal/passwords';
import { waitFor } from '../../test/helpers/ports';
import { PortalVisitor, csrfTokenIn, setCookieLine } from './support/portal-visitor';
import { useRedis } from './support/redis';

const logger = createLogger('portal-test', 'silent');
const ADMIN_TOKEN = 'test-admin-token-0123456789';
/** Cheaper hashes than production's for the many sign-ups here; the timing test uses the real cost. */
const CHEAP_HASHES: PortalTuning = { passwordCost: { log2N: 10, r: 8, p: 1 } };

const gateways: Gateway[] = [];

async function gatewayWith(env: Record<string, string> = {}, tuning: PortalTuning = CHEAP_HASHES): Promise<Gateway> {
  const config = loadGatewayConfig({ INTERNAL_JWT_SECRET: 'test-internal-secret-0123456789abcdef', ADMIN_TOKEN, TRUST_PROXY: 'loopback', ...env });
  const gateway = await createGateway(config, { logger, portalTuning: tuning });
  gateways.push(gateway);
  return gateway;
}

afterAll(async () => {
  await Promise.all(gateways.map((gateway) => gateway.close()));
});

let gateway: Gateway;
beforeAll(async () => {
  gateway = await gatewayWith();
});

const visitor = (g: Gateway = gateway, host?: string) => new PortalVisitor(g.publicApp, host);
let emails = 0;
const newEmail = () => `dev${(emails += 1)}@example.com`;

/** A visitor with a fresh account, logged in. */
async function signedUp(g: Gateway = gateway): Promise<{ browser: PortalVisitor; email: string }> {
  const browser = visitor(g);
  const email = newEmail();
  const response = await browser.signUp(email);
  expect(response.status).toBe(303);
  return { browser, email };
}

function accountIdOn(page: string): string {
  return /<code>(acct_[0-9A-Za-z]{20})<\/code>/.exec(page)![1]!;
}

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
      [gateway, 'Production'],
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
    const js = await request(gateway.publicApp).get(script);
    expect(js.status).toBe(200);
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(js.headers['cache-control']).toContain('immutable');
    const css = await request(gateway.publicApp).get('/portal/assets/portal.css');
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(css.headers['cache-control']).toBe('no-cache');
    expect((await request(gateway.publicApp).get('/portal/assets/secret.txt')).status).toBe(404);
  });

  it('when a path or method is not the portal\'s, then a page says so (404, 405 with Allow), never a 500', async () => {
    const browser = visitor();
    const missing = await browser.get('/portal/nowhere');
    expect(missing.status).toBe(404);
    expect(missing.text).toContain('There is no portal page at /portal/nowhere.');
    const wrong = await request(gateway.publicApp).delete('/portal').set('X-Forwarded-For', browser.ip);
    expect(wrong.status).toBe(405);
    expect(wrong.headers.allow).toBe('GET, HEAD');
    const getLogout = await browser.get('/portal/logout');
    expect(getLogout.status).toBe(405);
    expect(getLogout.headers.allow).toBe('POST');
    expect((await browser.get('/portal/keys/%E0%A4%A/revoke')).status).toBe(400);
  });

  it('when the portal is looked for under /v1 or on the admin port, then it is not there', async () => {
    expect((await request(gateway.publicApp).get('/v1/portal')).status).not.toBe(200);
    expect((await request(gateway.adminApp).get('/portal')).status).toBe(404);
  });
});

describe('sign-up', () => {
  it('when someone signs up, then a Free account with the normalised email exists, the admin API shows it, and they are logged in', async () => {
    const browser = visitor();
    const response = await browser.signUp('  Ann.Lee@Example.COM ');
    expect(response.status).toBe(303);
    expect(response.headers.location).toBe('/portal?welcome=1');
    const dashboard = await browser.get('/portal?welcome=1');
    expect(dashboard.status).toBe(200);
    expect(dashboard.text).toContain('Welcome! Your account is ready');
    expect(dashboard.text).toContain('<span class="who">ann.lee@example.com</span>');
    expect(dashboard.text).toContain('data-plan="free"');
    const accountId = accountIdOn(dashboard.text);
    const admin = await request(gateway.adminApp).get(`/admin/accounts/${accountId}`).set('Authorization', `Bearer ${ADMIN_TOKEN}`);
    expect(admin.body).toMatchObject({ id: accountId, plan: 'free', email: 'ann.lee@example.com', perMinute: 60, perDay: 1000 });
  });

  it('when the session cookie is set over plain http, then it is HttpOnly, SameSite=Lax, under /portal, not Secure', async () => {
    const browser = visitor();
    const login = await browser.get('/portal/signup');
    expect(setCookieLine(login, 'portal-form')).toMatch(/^portal-form=[A-Za-z0-9_-]{43}; Path=\/portal; HttpOnly; SameSite=Strict$/);
    const response = await browser.post('/portal/signup', { _csrf: csrfTokenIn(login.text), email: newEmail(), password: 'a long enough password' });
    expect(setCookieLine(response, 'portal-session')).toMatch(/^portal-session=[A-Za-z0-9_-]{43}; Path=\/portal; HttpOnly; SameSite=Lax$/);
  });

  it('when PUBLIC_BASE_URL is https, then the cookies are Secure and __Host- prefixed, and only that origin may post', async () => {
    const secure = await gatewayWith({ PUBLIC_BASE_URL: 'https://api.animalstore.example/v1' });
    const browser = new PortalVisitor(secure.publicApp, 'api.animalstore.example');
    const page = await browser.get('/portal/signup');
    expect(setCookieLine(page, '__Host-portal-form')).toMatch(/; Path=\/; HttpOnly; Secure; SameSite=Strict$/);
    const form = { _csrf: csrfTokenIn(page.text), email: newEmail(), password: 'a long enough password' };
    // The Host matches but the scheme does not: PUBLIC_BASE_URL's origin is the only one.
    expect((await browser.post('/portal/signup', form, { Origin: 'http://api.animalstore.example' })).status).toBe(403);
    const response = await browser.post('/portal/signup', form, { Origin: 'https://api.animalstore.example' });
    expect(response.status).toBe(303);
    expect(setCookieLine(response, '__Host-portal-session')).toMatch(/; Path=\/; HttpOnly; Secure; SameSite=Lax$/);
  });

  it('when an email is already signed up, in any case or spacing, then a second sign-up is refused', async () => {
    const email = newEmail();
    await visitor().signUp(email);
    const again = await visitor().signUp(` ${email.toUpperCase()}`);
    expect(again.status).toBe(409);
    expect(again.text).toContain('An account with this email already exists: log in instead.');
  });

  it('when eight browsers sign up with one email at the same moment, then exactly one account is made, with its password', async () => {
    const roomy = await gatewayWith({}, { ...CHEAP_HASHES, attempts: { signUpPerEmail: { points: 100, durationSeconds: 3_600 } } });
    const email = newEmail();
    const browsers = Array.from({ length: 8 }, () => visitor(roomy));
    const tokens = await Promise.all(browsers.map((b) => b.tokenFrom('/portal/signup')));
    const passwordOf = (i: number) => `password number ${i}!`;
    const responses = await Promise.all(browsers.map((b, i) => b.post('/portal/signup', { _csrf: tokens[i]!, email, password: passwordOf(i) })));
    expect(responses.map((r) => r.status).sort()).toEqual([303, 409, 409, 409, 409, 409, 409, 409]);
    const winner = responses.findIndex((r) => r.status === 303);
    const accountId = accountIdOn((await browsers[winner]!.get('/portal')).text);
    // Only the winner's password opens the account, and it opens that one account.
    for (let i = 0; i < browsers.length; i += 1) {
      const browser = visitor(roomy);
      const response = await browser.logIn(email, passwordOf(i));
      expect(response.status).toBe(i === winner ? 303 : 401);
      if (i === winner) expect(accountIdOn((await browser.get('/portal')).text)).toBe(accountId);
    }
  });

  it.each([
    ['a short password', { email: 'short@example.com', password: 'too short' }, 400, 'at least 10 characters'],
    ['an overlong password', { email: 'long@example.com', password: 'x'.repeat(129) }, 400, 'at most 128 characters'],
    ['no email', { email: '', password: 'a long enough password' }, 400, 'Enter your email address.'],
    ['a malformed email', { email: 'not-an-email', password: 'a long enough password' }, 400, 'like name@example.com'],
    ['a repeated field', { email: ['a@example.com', 'b@example.com'], password: 'a long enough password' }, 400, 'sent more than once'],
  ])('when sign-up gets %s, then the form comes back with a clear message and the email typed', async (_label, fields, status, message) => {
    const browser = visitor();
    const response = await browser.post('/portal/signup', { _csrf: await browser.tokenFrom('/portal/signup'), ...fields });
    expect(response.status).toBe(status);
    expect(response.text).toContain(message);
    expect(response.text).toContain('<form method="post" action="/portal/signup"');
    if (typeof fields.email === 'string' && fields.email) expect(response.text).toContain(`value="${fields.email}"`);
  });

  it('when someone signs up with a look-alike of a taken email (full-width letters, a trailing dot), then it is the same address: refused as taken', async () => {
    const g = await gatewayWith({}, { ...CHEAP_HASHES, attempts: { signUpPerEmail: { points: 100, durationSeconds: 3_600 } } });
    expect((await visitor(g).signUp('victim@example.com')).status).toBe(303);
    for (const lookAlike of ['\uff56ictim@example.com', 'victim@example.com.', 'VICTIM@EXAMPLE.COM.', 'victim\uff20example.com']) {
      const response = await visitor(g).signUp(lookAlike);
      expect(response.status).toBe(409);
    }
    // And it logs in under any of those spellings.
    expect((await visitor(g).logIn('\uff56ictim@example.com.')).status).toBe(303);
  });

  it.each([
    ['a zero-width space', 'vic\u200btim@example.com'],
    ['a soft hyphen', 'vic\u00adtim@example.com'],
    ['a right-to-left override', 'victim@\u202emoc.elpmaxe'],
  ])('when someone signs up with an email holding %s, then it is refused, not a second account that prints like the first', async (_what, email) => {
    const response = await visitor().signUp(email);
    expect(response.status).toBe(400);
    expect(response.text).toContain('invisible formatting character');
  });

  it('when an email has an internationalised domain, then the account keeps it in its ASCII (punycode) form', async () => {
    const browser = visitor();
    expect((await browser.signUp('Ann@B\u00fccher.example')).status).toBe(303);
    expect((await browser.get('/portal')).text).toContain('<span class="who">ann@xn--bcher-kva.example</span>');
  });

  it.each([
    ['one character repeated', 'aaaaaaaaaa', 'too easy to guess'],
    ['ten spaces', ' '.repeat(10), 'only spaces or invisible characters'],
    ['a common password from the list', 'qwertyuiop', 'one of the most common'],
    ['a common password with swaps', 'P@ssw0rd123', 'one of the most common'],
  ])('when sign-up gets %s as the password, then it is refused saying why', async (_what, password, message) => {
    const response = await visitor().signUp(newEmail(), password);
    expect(response.status).toBe(400);
    expect(response.text).toContain(message);
  });

  it('when an email holds markup, then it comes back escaped, never as markup', async () => {
    const browser = visitor();
    const response = await browser.post('/portal/signup', { _csrf: await browser.tokenFrom('/portal/signup'), email: '"><script>alert(1)</script>', password: 'x' });
    expect(response.status).toBe(400);
    expect(response.text).not.toContain('<script>alert(1)</script>');
    expect(response.text).toContain('value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"');
  });

  it('when the body is not a portal form, then 415 or 413 with a page, never a 500', async () => {
    const browser = visitor();
    const token = await browser.tokenFrom('/portal/signup');
    const json = await request(gateway.publicApp)
      .post('/portal/signup')
      .set('Host', browser.host)
      .set('Origin', browser.origin)
      .set('X-Forwarded-For', browser.ip)
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ _csrf: token, email: newEmail(), password: 'a long enough password' }));
    expect(json.status).toBe(415);
    expect(json.text).toContain('accepts only its own forms');
    const huge = await browser.post('/portal/signup', { _csrf: token, email: newEmail(), password: 'p'.repeat(20_000) });
    expect(huge.status).toBe(413);
    expect(huge.text).toContain('larger than any portal form');
  });

  it('when sign-up is closed, then the page says so without a form and the endpoint refuses', async () => {
    const closed = await gatewayWith({ PORTAL_SIGNUP: 'closed' });
    const browser = visitor(closed);
    const page = await browser.get('/portal/signup');
    expect(page.status).toBe(200);
    expect(page.text).toContain('Sign-up is closed');
    expect(page.text).not.toContain('action="/portal/signup"');
    expect((await browser.get('/portal')).text).not.toContain('href="/portal/signup"');
    const response = await browser.post('/portal/signup', { _csrf: csrfTokenIn((await browser.get('/portal')).text), email: newEmail(), password: 'a long enough password' });
    expect(response.status).toBe(403);
    expect(response.text).toContain('Sign-up is closed on this deployment');
    expect(response.headers['set-cookie']?.toString() ?? '').not.toContain('portal-session=');
  });
});

describe('log-in and sessions', () => {
  it('when the password is wrong or the email unknown, then the answer is the same', async () => {
    const { email } = await signedUp();
    const wrong = await visitor().logIn(email, 'not the right password');
    const unknown = await visitor().logIn(newEmail(), 'not the right password');
    const message = (r: request.Response) => /<p class="alert error" role="alert">([^<]+)<\/p>/.exec(r.text)?.[1];
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(message(wrong)).toBe('The email or password is incorrect.');
    expect(message(unknown)).toBe(message(wrong));
    expect(setCookieLine(wrong, 'portal-session')).toBeUndefined();
  });

  it('when an unknown email logs in, then it takes the time of a real password check (a dummy hash is checked)', async () => {
    const realCost = await gatewayWith({}, {});
    const { email } = await signedUp(realCost);
    const hashStarted = process.hrtime.bigint();
    await new PasswordHasher().hash('one hash for scale');
    const oneHashMs = Number(process.hrtime.bigint() - hashStarted) / 1e6;
    for (const [who, password] of [
      [email, 'not the right password'],
      [newEmail(), 'not the right password'],
    ]) {
      const browser = visitor(realCost);
      const token = await browser.tokenFrom('/portal/login');
      const started = process.hrtime.bigint();
      const response = await browser.post('/portal/login', { _csrf: token, email: who!, password: password! });
      expect(response.status).toBe(401);
      // A lower bound only: load slows everything down, it never makes the dummy check faster.
      expect(Number(process.hrtime.bigint() - started) / 1e6).toBeGreaterThan(oneHashMs * 0.4);
    }
  });

  it('when someone logs in with a session cookie already set (e.g. planted), then it gets a new token and the old session is dead', async () => {
    const { browser: planter, email } = await signedUp();
    const planted = planter.cookies.get('portal-session')!;
    const browser = visitor();
    const token = await browser.tokenFrom('/portal/login');
    browser.cookies.set('portal-session', planted);
    const response = await browser.post('/portal/login', { _csrf: token, email, password: 'a long enough password' });
    expect(response.status).toBe(303);
    const issued = browser.cookies.get('portal-session')!;
    expect(issued).not.toBe(planted);
    expect((await planter.get('/portal')).text).toContain('action="/portal/login"');
    expect((await browser.get('/portal')).text).toContain('data-plan="free"');
  });

  it('when someone logs out, then the session is deleted on the server: the old cookie opens nothing', async () => {
    const { browser } = await signedUp();
    const token = browser.cookies.get('portal-session')!;
    const response = await browser.post('/portal/logout', { _csrf: await browser.tokenFrom('/portal') });
    expect(response.status).toBe(303);
    expect(response.headers.location).toBe('/portal/login?bye=1');
    expect(setCookieLine(response, 'portal-session')).toMatch(/Expires=Thu, 01 Jan 1970/);
    expect((await browser.get('/portal/login?bye=1')).text).toContain('You have logged out.');
    const replay = new PortalVisitor(gateway.publicApp);
    replay.cookies.set('portal-session', token);
    const page = await replay.get('/portal');
    expect(page.text).not.toContain('data-plan=');
    expect((await replay.get('/portal/usage')).status).toBe(401);
  });

  it('when no request comes within the idle time, then the session is over', async () => {
    const shortLived = await gatewayWith({}, { ...CHEAP_HASHES, sessions: { idleMs: 400, absoluteMs: 60_000 } });
    const { browser } = await signedUp(shortLived);
    expect((await browser.get('/portal')).text).toContain('data-plan="free"');
    await new Promise((resolve) => setTimeout(resolve, 600));
    const page = await browser.get('/portal');
    expect(page.text).toContain('action="/portal/login"');
    const post = await browser.post('/portal/keys', { _csrf: 'whatever' });
    expect(post.status).toBe(401);
    expect(post.text).toContain('Your session has ended: log in again.');
  });

  it('when failed log-ins from one address run out, then the next is refused with Retry-After, even with the right password; other addresses log in', async () => {
    const limited = await gatewayWith({}, { ...CHEAP_HASHES, attempts: { logInFailuresPerAddress: { points: 3, durationSeconds: 600 } } });
    const { email } = await signedUp(limited);
    const browser = visitor(limited);
    for (let i = 0; i < 3; i += 1) expect((await browser.logIn(email, 'wrong password!')).status).toBe(401);
    const refused = await browser.logIn(email);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.text).toContain('Too many failed log-ins from your network: try again in 10 minutes.');
    expect((await visitor(limited).logIn(email)).status).toBe(303);
  });

  it('when sign-ups from one address run out, then the next is refused with Retry-After', async () => {
    const limited = await gatewayWith({}, { ...CHEAP_HASHES, attempts: { signUpPerAddress: { points: 2, durationSeconds: 3_600 } } });
    const browser = visitor(limited);
    expect((await browser.signUp(newEmail())).status).toBe(303);
    const second = new PortalVisitor(limited.publicApp, 'portal.test', browser.ip);
    expect((await second.signUp(newEmail())).status).toBe(303);
    const third = new PortalVisitor(limited.publicApp, 'portal.test', browser.ip);
    const refused = await third.signUp(newEmail());
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBeDefined();
    expect(refused.text).toContain('Too many sign-ups from your network');
  });

  it('when one address sends more portal requests than allowed, then it is refused (pages and the usage poll alike)', async () => {
    const limited = await gatewayWith({}, { ...CHEAP_HASHES, attempts: { requestsPerAddress: { points: 5, durationSeconds: 60 } } });
    const browser = visitor(limited);
    for (let i = 0; i < 5; i += 1) expect((await browser.get('/portal')).status).toBe(200);
    const page = await browser.get('/portal');
    expect(page.status).toBe(429);
    expect(page.headers['retry-after']).toBeDefined();
    const poll = await browser.get('/portal/usage');
    expect(poll.status).toBe(429);
    expect(poll.body).toEqual({ code: 'rate_limited', message: expect.stringContaining('Too many portal requests'), status: 429 });
    // The assets are not counted: a page view is one request, however many files it loads.
    expect((await browser.get('/portal/assets/portal.css')).status).toBe(200);
  });
});

describe('log-in limits that cannot lock the owner out (issue 17)', () => {
  /** Addresses of one IPv6 /64, as one subscriber holds them, and of another. */
  let hosts = 0;
  const inNetwork = (network: string) => `${network}::${(hosts += 1).toString(16)}`;

  it("when ten wrong log-ins for a victim's email come from ten addresses, then the victim's right password from a new address and a new browser still logs in", async () => {
    const g = await gatewayWith();
    const { email } = await signedUp(g);
    for (let i = 0; i < 10; i += 1) expect((await visitor(g).logIn(email, `wrong password ${i}!`)).status).toBe(401);
    const owner = visitor(g);
    const response = await owner.logIn(email);
    expect(response.status).toBe(303);
    expect((await owner.get('/portal')).text).toContain('data-plan="free"');
  });

  it('when an email has failed more often than allowed, then strangers are slowed down on it, not refused; the browser with its device cookie is not', async () => {
    const g = await gatewayWith({}, { ...CHEAP_HASHES, attempts: { logInFailuresPerEmail: { points: 2, durationSeconds: 900 } }, logInSlowdown: { stepMs: 2_000, maxMs: 2_000 } });
    const { browser: usual, email } = await signedUp(g);
    expect(usual.cookies.get('portal-device')).toMatch(/^[\w-]{22}\.[\w-]{43}$/);
    await usual.post('/portal/logout', { _csrf: await usual.tokenFrom('/portal') });
    for (let i = 0; i < 4; i += 1) await visitor(g).logIn(email, `wrong password ${i}!`);
    let started = Date.now();
    expect((await visitor(g).logIn(email)).status).toBe(303);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_900);
    started = Date.now();
    expect((await usual.logIn(email)).status).toBe(303);
    expect(Date.now() - started).toBeLessThan(1_900);
  });

  it('when one address fails on one email too often, then only that address is refused for that email, the same for an unknown email', async () => {
    const g = await gatewayWith({}, { ...CHEAP_HASHES, attempts: { logInFailuresPerEmailAndAddress: { points: 3, durationSeconds: 900 } } });
    const { email } = await signedUp(g);
    const unknownEmail = newEmail();
    const attacker = visitor(g);
    for (let i = 0; i < 3; i += 1) {
      expect((await attacker.logIn(email, 'wrong password!')).status).toBe(401);
      expect((await attacker.logIn(unknownEmail, 'wrong password!')).status).toBe(401);
    }
    const [known, unknown] = [await attacker.logIn(email), await attacker.logIn(unknownEmail)];
    expect([known.status, unknown.status]).toEqual([429, 429]);
    expect(known.text).toContain('Too many failed log-ins for this email from your network');
    expect(unknown.text).toContain('Too many failed log-ins for this email from your network');
    expect((await attacker.logIn(newEmail(), 'wrong password!')).status).toBe(401);
    expect((await visitor(g).logIn(email)).status).toBe(303);
  });

  it('when log-ins succeed, then they do not count: only failures use up an address\'s allowance', async () => {
    const g = await gatewayWith({}, { ...CHEAP_HASHES, attempts: { logInFailuresPerAddress: { points: 3, durationSeconds: 600 } } });
    const { email } = await signedUp(g);
    const office = visitor(g);
    for (let i = 0; i < 5; i += 1) expect((await new PortalVisitor(g.publicApp, 'portal.test', office.ip).logIn(email)).status).toBe(303);
    for (let i = 0; i < 3; i += 1) expect((await new PortalVisitor(g.publicApp, 'portal.test', office.ip).logIn(email, 'wrong password!')).status).toBe(401);
    expect((await new PortalVisitor(g.publicApp, 'portal.test', office.ip).logIn(email)).status).toBe(429);
  });

  it('when log-ins to unknown emails (each an scrypt) come from one address or one IPv6 /64, then they are limited, concurrent ones too', async () => {
    const g = await gatewayWith({}, { ...CHEAP_HASHES, attempts: { logInFailuresPerAddress: { points: 5, durationSeconds: 900 } } });
    const network = '2001:db8:17:1';
    const statuses: number[] = [];
    for (let i = 0; i < 6; i += 1) statuses.push((await new PortalVisitor(g.publicApp, 'portal.test', inNetwork(network)).logIn(newEmail(), 'any password at all')).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
    expect((await new PortalVisitor(g.publicApp, 'portal.test', inNetwork('2001:db8:17:2')).logIn(newEmail(), 'any password at all')).status).toBe(401);

    const burst = await Promise.all(Array.from({ length: 15 }, () => new PortalVisitor(g.publicApp, 'portal.test', '192.0.2.77').logIn(newEmail(), 'any password at all')));
    expect(burst.filter((response) => response.status === 401)).toHaveLength(5);
    expect(burst.filter((response) => response.status === 429)).toHaveLength(10);
  });

  it('when sign-ups and portal requests come from many addresses of one IPv6 /64, then they share one allowance, like /v1', async () => {
    const signUps = await gatewayWith({}, { ...CHEAP_HASHES, attempts: { signUpPerAddress: { points: 2, durationSeconds: 3_600 } } });
    const network = '2001:db8:17:3';
    const accepted = [];
    for (let i = 0; i < 3; i += 1) accepted.push((await new PortalVisitor(signUps.publicApp, 'portal.test', inNetwork(network)).signUp(newEmail())).status);
    expect(accepted).toEqual([303, 303, 429]);
    expect((await new PortalVisitor(signUps.publicApp, 'portal.test', inNetwork('2001:db8:17:4')).signUp(newEmail())).status).toBe(303);

    const pages = await gatewayWith({}, { ...CHEAP_HASHES, attempts: { requestsPerAddress: { points: 5, durationSeconds: 60 } } });
    const loads = [];
    for (let i = 0; i < 6; i += 1) loads.push((await new PortalVisitor(pages.publicApp, 'portal.test', inNetwork('2001:db8:17:5')).get('/portal/login')).status);
    expect(loads).toEqual([200, 200, 200, 200, 200, 429]);
    // IPv4 clients (IPv4-mapped too) are counted per address.
    expect((await new PortalVisitor(pages.publicApp, 'portal.test', '::ffff:192.0.2.9').get('/portal/login')).status).toBe(200);
  });

  it('when a device cookie is forged, or was issued for another email, then it is ignored; a real one has its own limit', async () => {
    const g = await gatewayWith({}, { ...CHEAP_HASHES, attempts: { logInFailuresPerDevice: { points: 2, durationSeconds: 900 }, logInFailuresPerEmailAndAddress: { points: 1, durationSeconds: 900 } } });
    const { browser: usual, email } = await signedUp(g);
    const { email: other } = await signedUp(g);
    const real = usual.cookies.get('portal-device')!;
    const forged = new PortalVisitor(g.publicApp);
    forged.cookies.set('portal-device', `${real.slice(0, 23)}${real[23] === 'A' ? 'B' : 'A'}${real.slice(24)}`);
    expect((await forged.logIn(email, 'wrong password!')).status).toBe(401);
    expect((await forged.logIn(email)).status).toBe(429); // a stranger: one failure per email and address here
    const borrowed = new PortalVisitor(g.publicApp);
    borrowed.cookies.set('portal-device', real);
    expect((await borrowed.logIn(other, 'wrong password!')).status).toBe(401);
    expect((await borrowed.logIn(other)).status).toBe(429);

    await usual.post('/portal/logout', { _csrf: await usual.tokenFrom('/portal') });
    for (let i = 0; i < 2; i += 1) expect((await usual.logIn(email, 'wrong password!')).status).toBe(401);
    const refused = await usual.logIn(email);
    expect(refused.status).toBe(429);
    expect(refused.text).toContain('Too many failed log-ins from this browser');
  });
});

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
    const noCookie = new PortalVisitor(gateway.publicApp);
    expect((await noCookie.post('/portal/login', { _csrf: token, email, password: 'a long enough password' })).status).toBe(403);
    browser.cookies.set('portal-form', 'y'.repeat(43));
    expect((await browser.post('/portal/login', { _csrf: token, email, password: 'a long enough password' })).status).toBe(403);
  });
});

describe('keys and usage', () => {
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

    const api = () => request(gateway.publicApp).get('/v1/store/inventory').set('Authorization', `Bearer ${key}`);
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
    expect((await request(gateway.publicApp).get('/v1/store/inventory').set('Authorization', `Bearer ${key}`)).status).toBe(501);
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
    const keys = await request(gateway.adminApp).get(`/admin/accounts/${accountId}/keys`).set('Authorization', `Bearer ${ADMIN_TOKEN}`);
    expect(keys.body.length).toBeLessThanOrEqual(20);
  });

  describe('key lifecycle: name, read-only, expiry, rolling', () => {
    const api = (key: string, method: 'get' | 'post' = 'get') => request(gateway.publicApp)[method]('/v1/store/inventory').set('Authorization', `Bearer ${key}`);
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
      const audit = await request(gateway.adminApp).get(`/admin/audit?account=${accountIdOn((await browser.get('/portal')).text)}`).set('Authorization', `Bearer ${ADMIN_TOKEN}`);
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

  it('when the API is called, then the usage endpoint and the dashboard give the header numbers; portal pages count for nothing', async () => {
    const { browser } = await signedUp();
    const { key } = await browser.createKey();
    for (let i = 0; i < 10; i += 1) await browser.get('/portal');
    let last: request.Response | undefined;
    for (let i = 0; i < 3; i += 1) last = await request(gateway.publicApp).get('/v1/store/inventory').set('Authorization', `Bearer ${key}`);
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
    const post = await request(gateway.publicApp).post('/portal/usage');
    expect(post.status).toBe(405);
    expect(post.body).toMatchObject({ code: 'method_not_allowed', status: 405 });
    expect(post.headers.allow).toBe('GET, HEAD');
  });
});

describe('with Redis', () => {
  const redis = useRedis();
  let onRedis: Gateway;

  beforeAll(async () => {
    onRedis = await gatewayWith({ REDIS_URL: redis.url });
    // Closed by the fixture while its Redis still runs (a connection closed mid-reconnect would hold the process).
    gateways.splice(gateways.indexOf(onRedis), 1);
    redis.closeAfter(onRedis);
  });

  it('when an account was signed up before emails were normalised (stored under its old form), then it still logs in', async () => {
    const { email } = await signedUp(onRedis);
    // What sign-up used to store for "ｌegacy…@example.com": the full-width letter as typed.
    const oldForm = `\uff4c${email}`;
    await redis.server.client.rename(`{gw}:portal:login:${email}`, `{gw}:portal:login:${oldForm}`);
    expect((await visitor(onRedis).logIn(email)).status).toBe(401);
    const browser = visitor(onRedis);
    expect((await browser.logIn(oldForm)).status).toBe(303);
    expect((await browser.get('/portal')).text).toContain('data-plan="free"');
  });

  it('when the portal runs on Redis, then sessions and log-ins live there; while Redis is away, pages say so with a 503, never a 500', async () => {
    const { browser, email } = await signedUp(onRedis);
    const keys = (await redis.server.client.keys('{gw}:portal:*')).join('\n');
    expect(keys).toContain(`{gw}:portal:login:${email}`);
    expect(keys).toContain('{gw}:portal:session:');
    expect(keys).not.toContain(browser.cookies.get('portal-session')!); // only the token's digest is stored

    await redis.server.stop();
    const page = await browser.get('/portal');
    expect(page.status).toBe(503);
    expect(page.text).toContain('The portal cannot reach its store right now; try again in a moment.');
    expect(page.headers['retry-after']).toBe('1');
    const login = await visitor(onRedis).logIn(email);
    expect(login.status).toBe(503);
    const usage = await browser.get('/portal/usage');
    expect(usage.status).toBe(503);
    expect(usage.body).toMatchObject({ code: 'service_unavailable', status: 503 });

    // Back again (an empty Redis: this test's keeps nothing on disk), the portal works again by itself.
    await redis.server.start();
    await waitFor(async () => (await browser.get('/portal')).status === 200, 10_000, 'the portal to reach Redis again');
    expect((await visitor(onRedis).signUp(newEmail())).status).toBe(303);
  });
});
