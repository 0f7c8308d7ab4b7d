import request from 'supertest';
import { ADMIN_TOKEN } from './support/gateway';
import { CHEAP_HASHES, accountIdOn, newEmail, usePortalGateways } from './support/portal';
import { PortalVisitor, csrfTokenIn, setCookieLine } from './support/portal-visitor';

/** Signing up on the portal: the account made, its cookies, and every way a sign-up form is refused. */

const portal = usePortalGateways();
const { gatewayWith, visitor } = portal;

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
    const admin = await request(portal.gateway.adminApp).get(`/admin/accounts/${accountId}`).set('Authorization', `Bearer ${ADMIN_TOKEN}`);
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

  it('when someone signs up with a look-alike of a taken email (full-width letters, trailing dots), then it is the same address: refused as taken', async () => {
    const g = await gatewayWith({}, { ...CHEAP_HASHES, attempts: { signUpPerEmail: { points: 100, durationSeconds: 3_600 } } });
    expect((await visitor(g).signUp('victim@example.com')).status).toBe(303);
    for (const lookAlike of ['\uff56ictim@example.com', 'victim@example.com.', 'victim@example.com..', 'VICTIM@EXAMPLE.COM.', 'victim\uff20example.com']) {
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
    ['a variation selector', 'victim\uFE0F@example.com'],
    ['a combining grapheme joiner', 'vic\u034Ftim@example.com'],
    ['a Hangul filler', 'victim\u3164@example.com'],
  ])('when someone signs up with an email holding %s, then it is refused, not a second account that prints like the first', async (_what, email) => {
    const response = await visitor().signUp(email);
    expect(response.status).toBe(400);
    expect(response.text).toContain('invisible character');
  });

  it('when someone signs up with a taken email spelled with a Cyrillic look-alike letter, then it is refused, not a second account that prints like the first', async () => {
    const g = await gatewayWith({}, CHEAP_HASHES);
    expect((await visitor(g).signUp('victim@example.com')).status).toBe(303);
    const response = await visitor(g).signUp('v\u0456ctim@example.com');
    expect(response.status).toBe(400);
    expect(response.text).toContain('mixes letters of different alphabets (Latin and Cyrillic)');
  });

  it('when someone signs up with a Cyrillic word that prints as a taken Latin address, then it is refused; the same word is fine while nobody has the Latin one', async () => {
    const g = await gatewayWith({}, CHEAP_HASHES);
    const cyrillicAlice = '\u0430\u04cf\u0456\u0441\u0435@example.com';
    expect((await visitor(g).signUp('\u0441\u0430\u0445\u0430\u0440@example.com')).status).toBe(303); // сахар: nobody is caxap@
    expect((await visitor(g).signUp('alice@example.com')).status).toBe(303);
    const response = await visitor(g).signUp(cyrillicAlice);
    expect(response.status).toBe(409);
    expect(response.text).toContain('prints like alice@example.com, which already has an account');
  });

  it('when an email has an internationalised domain, then the account keeps it in its ASCII (punycode) form', async () => {
    const browser = visitor();
    expect((await browser.signUp('Ann@B\u00fccher.example')).status).toBe(303);
    expect((await browser.get('/portal')).text).toContain('<span class="who">ann@xn--bcher-kva.example</span>');
  });

  it.each([
    ['one character repeated', 'aaaaaaaaaa', 'too easy to guess'],
    ['ten spaces', ' '.repeat(10), 'only spaces or invisible characters'],
    ['a common password from the list', 'qwertyuiop', 'This is a frequently used password'],
    ['a common password with swaps', 'P@ssw0rd123', 'similar to a commonly used password'],
    ['a season and a year (issue 24)', 'Summer2024!', 'choose a longer passphrase'],
    ['the name of the system (issue 24)', 'Animalstore1', 'choose a longer passphrase'],
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
    const json = await request(portal.gateway.publicApp)
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
