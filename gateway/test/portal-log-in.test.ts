import request from 'supertest';
import { PasswordHasher } from '../src/portal/passwords';
import { CHEAP_HASHES, newEmail, usePortalGateways } from './support/portal';
import { PortalVisitor, setCookieLine } from './support/portal-visitor';

/** Logging in and out of the portal, its sessions, and the per-address limits on log-ins, sign-ups and requests. */

const portal = usePortalGateways();
const { gatewayWith, visitor, signedUp } = portal;
// The idle-time test fakes `Date`; every test after it has the real clock again.
afterEach(() => {
  jest.useRealTimers();
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

  it('when an unknown email logs in, then it takes the work of a real password check (a dummy hash is checked)', async () => {
    const realCost = await gatewayWith({}, {});
    const { email } = await signedUp(realCost);
    // The gateway runs in this process, and scrypt on libuv's threads, so the process's CPU time
    // holds the hash's work. CPU time, not wall time: how busy the machine is moves the wall time of
    // a hash and of a log-in apart (a CI run beside this one made a log-in read 346 ms against a
    // hash of 926 ms measured under more load), but not the work either does.
    const cpuMs = (since: NodeJS.CpuUsage) => {
      const { user, system } = process.cpuUsage(since);
      return (user + system) / 1000;
    };
    const oneHashCpuMs = async () => {
      const before = process.cpuUsage();
      await new PasswordHasher().hash('one hash for scale');
      return cpuMs(before);
    };
    const hashBefore = await oneHashCpuMs();
    const logInsCpuMs: number[] = [];
    for (const [who, password] of [
      [email, 'not the right password'],
      [newEmail(), 'not the right password'],
    ]) {
      const browser = visitor(realCost);
      const token = await browser.tokenFrom('/portal/login');
      const before = process.cpuUsage();
      const response = await browser.post('/portal/login', { _csrf: token, email: who!, password: password! });
      logInsCpuMs.push(cpuMs(before));
      expect(response.status).toBe(401);
    }
    // The smaller of two hashes for scale: a lower bound, with room for the cache misses that
    // another process's work can add to one of them.
    const oneHash = Math.min(hashBefore, await oneHashCpuMs());
    for (const spent of logInsCpuMs) expect(spent).toBeGreaterThan(oneHash * 0.5);
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
    const replay = new PortalVisitor(portal.gateway.publicApp);
    replay.cookies.set('portal-session', token);
    const page = await replay.get('/portal');
    expect(page.text).not.toContain('data-plan=');
    expect((await replay.get('/portal/usage')).status).toBe(401);
  });

  it('when no request comes within the idle time, then the session is over', async () => {
    // A clock that moves only when the test moves it (`Date` faked; timers run in real time): the
    // idle time passes between two requests however long the requests before them took.
    jest.useFakeTimers({ doNotFake: ['hrtime', 'nextTick', 'performance', 'queueMicrotask', 'setImmediate', 'clearImmediate', 'setInterval', 'clearInterval', 'setTimeout', 'clearTimeout'] });
    const shortLived = await gatewayWith({}, { ...CHEAP_HASHES, sessions: { idleMs: 400, absoluteMs: 60_000 } });
    const { browser } = await signedUp(shortLived);
    expect((await browser.get('/portal')).text).toContain('data-plan="free"');
    jest.setSystemTime(Date.now() + 600);
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
