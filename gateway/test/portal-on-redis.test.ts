import type { Gateway } from '../src/gateway';
import { waitFor } from '../../test/helpers/ports';
import { newEmail, signedUpOn, startPortalGateway } from './support/portal';
import { PortalVisitor } from './support/portal-visitor';
import { useRedis } from './support/redis';

/** The portal with its store on Redis: sessions and log-ins there, and pages while Redis is away. */

describe('with Redis', () => {
  const redis = useRedis();
  let onRedis: Gateway;

  beforeAll(async () => {
    // Closed by the Redis fixture while its Redis still runs (a connection closed mid-reconnect would hold the process).
    onRedis = redis.closeAfter(await startPortalGateway({ REDIS_URL: redis.url }));
  });

  const visitor = () => new PortalVisitor(onRedis.publicApp);

  it('when an account was signed up before emails were normalised (stored under its old form), then it still logs in', async () => {
    const { email } = await signedUpOn(onRedis);
    // What sign-up used to store for "ｌegacy…@example.com": the full-width letter as typed.
    const oldForm = `\uff4c${email}`;
    await redis.server.client.rename(`{gw}:portal:login:${email}`, `{gw}:portal:login:${oldForm}`);
    expect((await visitor().logIn(email)).status).toBe(401);
    const browser = visitor();
    expect((await browser.logIn(oldForm)).status).toBe(303);
    expect((await browser.get('/portal')).text).toContain('data-plan="free"');
  });

  it('when the portal runs on Redis, then sessions and log-ins live there; while Redis is away, pages say so with a 503, never a 500', async () => {
    const { browser, email } = await signedUpOn(onRedis);
    const keys = (await redis.server.client.keys('{gw}:portal:*')).join('\n');
    expect(keys).toContain(`{gw}:portal:login:${email}`);
    expect(keys).toContain('{gw}:portal:session:');
    expect(keys).not.toContain(browser.cookies.get('portal-session')!); // only the token's digest is stored

    await redis.server.stop();
    const page = await browser.get('/portal');
    expect(page.status).toBe(503);
    expect(page.text).toContain('The portal cannot reach its store right now; try again in a moment.');
    expect(page.headers['retry-after']).toBe('1');
    const login = await visitor().logIn(email);
    expect(login.status).toBe(503);
    const usage = await browser.get('/portal/usage');
    expect(usage.status).toBe(503);
    expect(usage.body).toMatchObject({ code: 'service_unavailable', status: 503 });

    // Back again (an empty Redis: this test's keeps nothing on disk), the portal works again by itself.
    await redis.server.start();
    await waitFor(async () => (await browser.get('/portal')).status === 200, 10_000, 'the portal to reach Redis again');
    expect((await visitor().signUp(newEmail())).status).toBe(303);
  });
});
