import { CHEAP_HASHES, newEmail, usePortalGateways } from './support/portal';
import { PortalVisitor } from './support/portal-visitor';

/** The log-in limits that slow attackers down without locking an account's owner out (issue 17). */

const { gatewayWith, visitor, signedUp } = usePortalGateways();

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
    const g = await gatewayWith({}, { ...CHEAP_HASHES, attempts: { logInFailuresPerEmail: { points: 2, durationSeconds: 900 } }, logInSlowdown: { stepMs: 4_000, maxMs: 4_000 } });
    const { browser: usual, email } = await signedUp(g);
    expect(usual.cookies.get('portal-device')).toMatch(/^[\w-]{22}\.[\w-]{43}$/);
    await usual.post('/portal/logout', { _csrf: await usual.tokenFrom('/portal') });
    for (let i = 0; i < 4; i += 1) await visitor(g).logIn(email, `wrong password ${i}!`);
    let started = Date.now();
    expect((await visitor(g).logIn(email)).status).toBe(303);
    expect(Date.now() - started).toBeGreaterThanOrEqual(3_900);
    started = Date.now();
    expect((await usual.logIn(email)).status).toBe(303);
    // Not slowed down: well below the 4 s a stranger waits, with room for a loaded machine.
    expect(Date.now() - started).toBeLessThan(3_900);
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
