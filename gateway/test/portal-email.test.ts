import { Writable } from 'node:stream';
import request from 'supertest';
import pino from 'pino';
import { loadGatewayConfig } from '../src/config';
import { createGateway, type Gateway } from '../src/gateway';
import { TestSmtpServer, linkIn, type ReceivedEmail } from '../../test/helpers/smtp-server';
import { waitFor } from '../../test/helpers/ports';
import { ADMIN_TOKEN, publicGet } from './support/gateway';
import { CHEAP_HASHES, accountIdOn, newEmail } from './support/portal';
import { PortalVisitor, csrfTokenIn } from './support/portal-visitor';

/** Verification, password reset and quota emails through a real SMTP server, on one gateway in process. */
let smtp: TestSmtpServer;
let gateway: Gateway;
const PASSWORD = 'a long enough password';
const NEW_PASSWORD = 'quiet harbour lantern maple';

beforeAll(async () => {
  smtp = await TestSmtpServer.start();
  gateway = await startGateway(smtp.url);
});

afterAll(async () => {
  await gateway?.close();
  await smtp?.stop();
});

function startGateway(smtpUrl: string): Promise<Gateway> {
  return startPortalGatewayWithMail({ SMTP_URL: smtpUrl });
}

/** A portal gateway whose emails are retried after 200 ms, 500 ms, then every second for a while. */
async function startPortalGatewayWithMail(env: Record<string, string>): Promise<Gateway> {
  const config = loadGatewayConfig({ INTERNAL_JWT_SECRET: 'test-internal-secret-0123456789abcdef', ADMIN_TOKEN, TRUST_PROXY: 'loopback', PETS_URL: 'http://127.0.0.1:9', ...env });
  return createGateway(config, { logger: pino({ level: 'silent' }), portalTuning: CHEAP_HASHES, mailTuning: { retryDelaysMs: [200, 500, ...Array(20).fill(1_000)] } });
}

/** The path and query of an absolute link, to follow it on the in-process app. */
const pathOf = (link: string) => {
  const url = new URL(link);
  return `${url.pathname}${url.search}`;
};

/** Opens an emailed link's page and submits its one form (verify, or reset with `fields`). */
async function follow(browser: PortalVisitor, link: string, fields: Record<string, string> = {}) {
  const page = await browser.get(pathOf(link));
  expect(page.status).toBe(200);
  const token = /name="token" value="([^"]+)"/.exec(page.text)?.[1] ?? '';
  // The form's own token (a signed-in page also has the log-out form's).
  const csrf = /name="_csrf" value="([^"]+)">\s*<input type="hidden" name="token"/.exec(page.text)?.[1] ?? '';
  return browser.post(new URL(link).pathname, { _csrf: csrf, token, ...fields });
}

async function signUp(email = newEmail()): Promise<{ browser: PortalVisitor; email: string; verification: ReceivedEmail }> {
  const browser = new PortalVisitor(gateway.publicApp);
  expect((await browser.signUp(email, PASSWORD)).status).toBe(303);
  const [verification] = await smtp.emailsTo(email);
  return { browser, email, verification: verification! };
}

describe('verification at sign-up (SMTP_URL set)', () => {
  it('when a developer signs up, then a link arrives, keys wait for it, and once followed a key can be created', async () => {
    const { browser, verification } = await signUp();
    expect(verification.subject).toMatch(/Confirm your email address/);
    expect(verification.headers['content-type']).toMatch(/^text\/plain/);
    expect(verification.text).not.toContain(PASSWORD);
    const link = linkIn(verification, '/portal/verify');
    expect(link).toMatch(/^http:\/\/localhost:8080\/portal\/verify\?token=acct_[0-9A-Za-z]{20}\.[A-Za-z0-9_-]{43}$/);

    expect((await browser.get('/portal?welcome=1')).text).toContain('Welcome! Your account is ready: confirm your email address with the link we sent');
    const dashboard = await browser.get('/portal');
    expect(dashboard.text).toContain('cannot create API keys');
    expect(dashboard.text).toContain('Send the link again');
    const refused = await browser.createKey();
    expect(refused.response.status).toBe(403);
    expect(refused.response.text).toContain('Confirm your email address before creating keys');

    const verified = await follow(browser, link);
    expect(verified.status).toBe(303);
    expect(verified.headers.location).toBe('/portal?verified=1');
    expect((await browser.get('/portal')).text).not.toContain('Send the link again');
    expect((await browser.createKey()).response.status).toBe(201);
    // Single use.
    expect((await follow(browser, link)).status).toBe(400);
    // "Send the link again" from a dashboard left open: nothing is sent, and the page says the address is confirmed.
    const resent = await browser.post('/portal/verify/resend', { _csrf: await browser.tokenFrom('/portal') });
    expect(resent.headers.location).toBe('/portal?verified=1');
  });

  it('when an account not yet verified holds a key (made by ops), then rolling it on the dashboard makes no new key either', async () => {
    const { browser } = await signUp();
    const accountId = accountIdOn((await browser.get('/portal')).text);
    const made = await request(gateway.adminApp).post(`/admin/accounts/${accountId}/keys`).set('Authorization', `Bearer ${ADMIN_TOKEN}`).send({});
    expect(made.status).toBe(201);
    const page = await browser.get(`/portal/keys/${made.body.id}/roll`);
    expect(page.status).toBe(200);
    const rolled = await browser.post(`/portal/keys/${made.body.id}/roll`, { _csrf: csrfTokenIn(page.text), grace: '1', graceUnit: 'hours' });
    expect(rolled.status).toBe(403);
    expect(rolled.text).toContain('Confirm your email address before creating keys');
    expect(rolled.text).not.toMatch(/id="new-key"/);
  });

  it('when the link is sent again, then the older one stops working; a fourth in the hour is refused with Retry-After', async () => {
    const { browser, email, verification } = await signUp();
    const resend = async () => browser.post('/portal/verify/resend', { _csrf: await browser.tokenFrom('/portal') });
    for (let i = 0; i < 3; i++) expect((await resend()).status).toBe(303);
    const emails = await smtp.emailsTo(email, 4);
    const refused = await resend();
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.text).toContain('try again in');
    expect((await follow(browser, linkIn(verification, '/portal/verify'))).status).toBe(400);
    expect((await follow(browser, linkIn(emails[3]!, '/portal/verify'))).status).toBe(303);
  });
});

describe('password reset', () => {
  it('when the owner forgot the password, then the emailed link sets a new one, every session ends, and the old password stops working', async () => {
    const { browser: oldSession, email } = await signUp();
    const stranger = new PortalVisitor(gateway.publicApp);
    const ask = async (who: PortalVisitor, address: string) => who.post('/portal/forgot', { _csrf: await who.tokenFrom('/portal/forgot'), email: address });
    const known = await ask(stranger, email);
    const unknown = await ask(stranger, newEmail());
    expect([known.status, unknown.status]).toEqual([200, 200]);
    const strip = (page: string, address: string) => page.replaceAll(address, 'ADDRESS').replace(/value="[^"]+"/g, '');
    expect(strip(known.text, email)).toBe(strip(unknown.text, /If (\S+) has an account/.exec(unknown.text)![1]!));

    const emails = await smtp.emailsTo(email, 2);
    const reset = emails.find((received) => /new password/.test(received.subject))!;
    expect(reset.text).not.toContain(PASSWORD);
    const link = linkIn(reset, '/portal/reset');

    const weak = await follow(stranger, link, { password: 'short' });
    expect(weak.status).toBe(400);
    const changed = await follow(stranger, link, { password: NEW_PASSWORD });
    expect(changed.status).toBe(303);
    expect(changed.headers.location).toBe('/portal/login?reset=1');

    expect((await oldSession.get('/portal')).text).toContain('action="/portal/login"');
    const fresh = new PortalVisitor(gateway.publicApp);
    expect((await fresh.logIn(email, PASSWORD)).status).toBe(401);
    expect((await fresh.logIn(email, NEW_PASSWORD)).status).toBe(303);
    expect((await follow(fresh, link, { password: 'another long password here' })).status).toBe(400);
  });

  it('when a reset is asked for an address with an account and one without, then both get the same page: status, headers, cookies and body', async () => {
    const { email } = await signUp();
    const unknown = newEmail();
    /** The answer with what differs by nature masked: the typed address, form tokens, the request id, the date. */
    const answerTo = async (address: string) => {
      const visitor = new PortalVisitor(gateway.publicApp);
      const response = await visitor.post('/portal/forgot', { _csrf: await visitor.tokenFrom('/portal/forgot'), email: address });
      const headers = Object.entries(response.headers as Record<string, string | string[]>)
        .filter(([name]) => !['x-request-id', 'date', 'content-length', 'etag'].includes(name))
        .map(([name, value]) => [name, name === 'set-cookie' ? [value].flat().map((cookie) => cookie.replace(/=[^;]*/, '=…')) : value]);
      return { status: response.status, headers, body: response.text.replaceAll(address, 'ADDRESS').replace(/value="[^"]*"/g, 'value="…"') };
    };
    const known = await answerTo(email);
    expect(known.status).toBe(200);
    expect(await answerTo(unknown)).toEqual(known);
  });

  it('when others ask for many reset emails, then at most 3 are sent in the hour and the owner still logs in', async () => {
    const { email } = await signUp();
    for (let i = 0; i < 5; i++) {
      const stranger = new PortalVisitor(gateway.publicApp);
      expect((await stranger.post('/portal/forgot', { _csrf: await stranger.tokenFrom('/portal/forgot'), email })).status).toBe(200);
    }
    await smtp.emailsTo(email, 4);
    expect((await new PortalVisitor(gateway.publicApp).logIn(email, PASSWORD)).status).toBe(303);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await smtp.emailsTo(email)).filter((received) => /new password/.test(received.subject))).toHaveLength(3);
  });
});

describe('sending', () => {
  it('when the mail server is down at sign-up and back later, then the sign-up answers at once and the email still arrives', async () => {
    const down = await TestSmtpServer.start();
    await down.stop();
    const g = await startGateway(down.url);
    try {
      const email = newEmail();
      const browser = new PortalVisitor(g.publicApp);
      expect((await browser.signUp(email, PASSWORD)).status).toBe(303);
      await waitFor(async () => (await g.mail.queueStats()).delayed === 1, 10_000, 'the email waiting for its retry');
      await down.listen();
      const [verification] = await down.emailsTo(email);
      expect(linkIn(verification!, '/portal/verify')).toContain('/portal/verify?token=');
    } finally {
      await g.close();
      await down.stop();
    }
  });

  it('when SMTP_URL is not set, then each email is written whole to the log and keys need no verification', async () => {
    const lines: Array<{ msg: string; email?: { to: string; text: string } }> = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(chunk.toString()) as (typeof lines)[number]);
        done();
      },
    });
    const config = loadGatewayConfig({ INTERNAL_JWT_SECRET: 'test-internal-secret-0123456789abcdef', ADMIN_TOKEN, TRUST_PROXY: 'loopback', PETS_URL: 'http://127.0.0.1:9' });
    const g = await createGateway(config, { logger: pino({ level: 'info' }, stream), portalTuning: CHEAP_HASHES });
    try {
      const email = newEmail();
      const browser = new PortalVisitor(g.publicApp);
      await browser.signUp(email, PASSWORD);
      await waitFor(() => lines.some((line) => line.email?.to === email), 10_000, 'the email in the log');
      const logged = lines.find((line) => line.email?.to === email)!;
      expect(logged.msg).toContain('not sent: SMTP_URL is not set');
      expect(logged.email!.text).toMatch(/http:\/\/localhost:8080\/portal\/verify\?token=/);
      expect((await browser.createKey()).response.status).toBe(201);
    } finally {
      await g.close();
    }
  });
});

describe('quota emails', () => {
  async function verifiedAccountWithKey(perDay: number) {
    const { browser, verification } = await signUp();
    await follow(browser, linkIn(verification, '/portal/verify'));
    const { key } = await browser.createKey();
    const accountId = accountIdOn((await browser.get('/portal')).text);
    await gateway.accounts.updateAccount(accountId, { perDay });
    return { browser, key, accountId };
  }
  const spend = async (key: string, count: number) => {
    for (let i = 0; i < count; i++) await publicGet(gateway, '/v1/pets', '198.51.100.9', key);
  };

  it('when an account crosses 80 % and 100 % of its day quota, then one email each, with a List-Unsubscribe link that turns them off', async () => {
    const { key, accountId } = await verifiedAccountWithKey(5);
    const account = await gateway.accounts.getAccount(accountId);
    await spend(key, 7);
    const emails = await smtp.emailsTo(account.email!, 3);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const quota = (await smtp.emailsTo(account.email!)).filter((received) => /quota/.test(received.subject));
    expect(quota.map((received) => received.subject)).toEqual(["You have used 80 % of today's API quota", "Today's API quota is used up"]);
    expect(emails).toHaveLength(3);
    expect(quota[0]!.text).toContain('used 4 of its 5 requests');
    const unsubscribe = /^<(.+)>$/.exec(quota[0]!.headers['list-unsubscribe']!)![1]!;
    expect(quota[0]!.headers['list-unsubscribe-post']).toBe('List-Unsubscribe=One-Click');
    // A mail client's one-click POST: no cookie, no Origin.
    const oneClick = await new PortalVisitor(gateway.publicApp).post(pathOf(unsubscribe), { 'List-Unsubscribe': 'One-Click' }, {});
    expect(oneClick.status).toBe(200);
    expect(oneClick.text).toContain('Quota emails are off');
    const forged = await new PortalVisitor(gateway.publicApp).post(pathOf(unsubscribe).replace(/token=[^&]+/, 'token=forged'), {}, {});
    expect(forged.status).toBe(400);
  });

  it('when the owner turned quota emails off in the portal, then none is sent', async () => {
    const { browser, key, accountId } = await verifiedAccountWithKey(5);
    const saved = await browser.post('/portal/email-settings', { _csrf: await browser.tokenFrom('/portal') });
    expect(saved.headers.location).toBe('/portal?saved=emails');
    expect((await browser.get('/portal')).text).not.toMatch(/id="quota-emails"[^>]*checked/);
    await spend(key, 6);
    const other = await verifiedAccountWithKey(2);
    await spend(other.key, 2);
    await smtp.emailsTo((await gateway.accounts.getAccount(other.accountId)).email!, 3);
    const email = (await gateway.accounts.getAccount(accountId)).email!;
    expect((await smtp.emailsTo(email)).filter((received) => /quota/.test(received.subject))).toEqual([]);
  });
});

describe('ops and verification', () => {
  it('when ops look at an account, then they see whether its email is verified, and may mark it verified (audited)', async () => {
    const { browser } = await signUp();
    const accountId = accountIdOn((await browser.get('/portal')).text);
    const admin = request(gateway.adminApp);
    const auth = { Authorization: `Bearer ${ADMIN_TOKEN}` };
    expect((await admin.get(`/admin/accounts/${accountId}`).set(auth)).body).toMatchObject({ emailVerified: false, emailVerifiedAt: null });

    const marked = await admin.post(`/admin/accounts/${accountId}/verify`).set(auth);
    expect(marked.status).toBe(200);
    expect(marked.body).toMatchObject({ id: accountId, emailVerified: true, emailVerifiedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/) });
    expect((await browser.createKey()).response.status).toBe(201);
    const audit = await admin.get('/admin/audit?limit=5').set(auth);
    expect(audit.body).toContainEqual(expect.objectContaining({ actor: 'admin', action: 'account.email_verified', target: accountId, before: { emailVerified: false }, after: { emailVerified: true } }));

    const opsAccount = await gateway.accounts.createAccount({ name: 'Ops made', plan: 'free' });
    expect((await admin.get(`/admin/accounts/${opsAccount.id}`).set(auth)).body).toMatchObject({ emailVerified: null });
    expect((await admin.post('/admin/accounts/acct_00000000000000000000/verify').set(auth)).status).toBe(404);
  });
});
