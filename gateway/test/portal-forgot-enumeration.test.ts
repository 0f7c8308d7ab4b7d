import pino from 'pino';
import { loadGatewayConfig } from '../src/config';
import { createGateway, type Gateway } from '../src/gateway';
import { TestSmtpServer } from '../../test/helpers/smtp-server';
import { sleep } from '../../test/helpers/ports';
import { ADMIN_TOKEN } from './support/gateway';
import { CHEAP_HASHES, newEmail } from './support/portal';
import { PortalVisitor } from './support/portal-visitor';

/** "Forgot password" tells nobody whether an email has an account: one page either way, the email sent off the request. */
let smtp: TestSmtpServer;
let gateway: Gateway;

beforeAll(async () => {
  smtp = await TestSmtpServer.start();
  const config = loadGatewayConfig({ INTERNAL_JWT_SECRET: 'test-internal-secret-0123456789abcdef', ADMIN_TOKEN, TRUST_PROXY: 'loopback', PETS_URL: 'http://127.0.0.1:9', SMTP_URL: smtp.url });
  gateway = await createGateway(config, { logger: pino({ level: 'silent' }), portalTuning: CHEAP_HASHES });
});

afterAll(async () => {
  await gateway?.close();
  await smtp?.stop();
});

/** The answer to "forgot password" for `email`, with what differs per visitor (the form token) and the typed address taken out. */
async function forgot(email: string) {
  const visitor = new PortalVisitor(gateway.publicApp);
  const answer = await visitor.post('/portal/forgot', { _csrf: await visitor.tokenFrom('/portal/forgot'), email });
  return { status: answer.status, page: answer.text.replaceAll(email, '<email>').replace(/name="_csrf" value="[^"]+"/g, 'name="_csrf"') };
}

describe('forgot password', () => {
  it('when a registered and an unknown email ask for a reset, then the same page answers both (only the typed address differs), and only the registered one gets an email', async () => {
    const registered = newEmail();
    expect((await new PortalVisitor(gateway.publicApp).signUp(registered, 'a long enough password')).status).toBe(303);
    await smtp.emailsTo(registered, 1);
    const unknown = newEmail();

    const [known, stranger] = [await forgot(registered), await forgot(unknown)];
    expect(known.status).toBe(200);
    expect(stranger).toEqual(known);
    expect(known.page).toContain('<email>');

    const emails = await smtp.emailsTo(registered, 2);
    expect(emails.filter((email) => /new password/.test(email.subject))).toHaveLength(1);
    // The unknown address's email would have been queued as fast: after the registered one arrived, none came.
    await sleep(300);
    expect(await smtp.emailsTo(unknown, 0)).toEqual([]);
  });
});
