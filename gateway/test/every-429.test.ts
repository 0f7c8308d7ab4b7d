import request from 'supertest';
import type { Gateway } from '../src/gateway';
import type { AttemptPolicies } from '../src/portal/attempt-limits';
import { ADMIN_TOKEN, publicGet, startGateway } from './support/gateway';
import { CHEAP_HASHES, accountIdOn, newEmail, signedUpOn, startPortalGateway } from './support/portal';
import { PortalVisitor } from './support/portal-visitor';

/**
 * Every 429 the system can give carries `Retry-After` in whole seconds, at least 1 (CONTRACT, "Abuse
 * limits"; issue 24, item 7: the 21st portal key creation of a day had none). Each case drives one
 * limit to its refusal on a gateway in process with small limits; a limit added later belongs here.
 */
const gateways: Gateway[] = [];
async function gatewayWith(env: Record<string, string> = {}, attempts: Partial<AttemptPolicies> = {}): Promise<Gateway> {
  const gateway = await startPortalGateway({ CORS_ORIGINS: 'https://app.example.com', ...env }, { ...CHEAP_HASHES, attempts });
  gateways.push(gateway);
  return gateway;
}
afterAll(async () => {
  await Promise.all(gateways.map((gateway) => gateway.close()));
});

/** Sends `next` until it is answered 429 (with `code`, if given), at most `tries` times; that 429. */
async function until429(next: () => Promise<request.Response>, { tries = 50, code }: { tries?: number; code?: string } = {}): Promise<request.Response> {
  for (let i = 0; i < tries; i++) {
    const response = await next();
    if (response.status === 429 && (code === undefined || (response.body as { code?: unknown }).code === code)) return response;
  }
  throw new Error(`no 429${code ? ` ${code}` : ''} in ${tries} requests`);
}

const anonymous = async () => {
  const gateway = await gatewayWith({ ANON_PER_MINUTE: '2' });
  return until429(() => publicGet(gateway, '/v1/pets', '198.51.100.1'));
};

const mintedKeys = async () => {
  // Keys nobody issued: each is looked up (the look-up gate), refused 401, and charged to the address.
  const gateway = await gatewayWith({ ANON_PER_MINUTE: '2' });
  let n = 0;
  return until429(() => publicGet(gateway, '/v1/pets', '198.51.100.2', `ask_live_${String((n += 1)).padStart(32, '0')}`));
};

const accountLimit = async (code: 'rate_limited' | 'temporarily_banned') => {
  const gateway = await gatewayWith({ BAN_THRESHOLD: '2' });
  const account = await gateway.accounts.createAccount({ name: 'Tiny', plan: 'enterprise', perMinute: 1, perDay: 1_000 });
  const { key } = await gateway.accounts.createKey(account.id);
  return until429(() => publicGet(gateway, '/v1/pets', '198.51.100.3', key), { code });
};

const preflights = async () => {
  const gateway = await gatewayWith({ PREFLIGHT_PER_MINUTE: '3' });
  return until429(() =>
    request(gateway.publicApp).options('/v1/pets').set('X-Forwarded-For', '198.51.100.4').set('Origin', 'https://app.example.com').set('Access-Control-Request-Method', 'POST'),
  );
};

const portalRequests = async (path: string) => {
  const gateway = await gatewayWith({}, { requestsPerAddress: { points: 3, durationSeconds: 60 } });
  const browser = new PortalVisitor(gateway.publicApp);
  return until429(() => browser.get(path));
};

const signUps = async () => {
  const gateway = await gatewayWith({}, { signUpPerAddress: { points: 1, durationSeconds: 3_600 } });
  // A new browser each time (the last one is logged in), from one address.
  return until429(() => new PortalVisitor(gateway.publicApp, undefined, '198.51.100.5').signUp(newEmail()));
};

const logInFailures = async () => {
  const gateway = await gatewayWith({}, { logInFailuresPerAddress: { points: 2, durationSeconds: 900 } });
  const browser = new PortalVisitor(gateway.publicApp);
  return until429(() => browser.logIn(newEmail(), 'not the password at all'));
};

const keyCreations = async (where: 'portal' | 'admin') => {
  const gateway = await gatewayWith();
  const { browser } = await signedUpOn(gateway);
  const accountId = accountIdOn((await browser.get('/portal')).text);
  // The most keys an account may create in 24 hours, each revoked (so the active-key limit is not the one met).
  for (;;) {
    const made = await gateway.accounts.createKey(accountId).catch((error: unknown) => error);
    if (!(made && typeof made === 'object' && 'id' in made)) break;
    await gateway.accounts.revokeKey(made.id as string);
  }
  if (where === 'portal') return until429(async () => (await browser.createKey()).response, { tries: 1 });
  return until429(() => request(gateway.adminApp).post(`/admin/accounts/${accountId}/keys`).set('Host', '127.0.0.1').set('Authorization', `Bearer ${ADMIN_TOKEN}`), { tries: 1 });
};

const adminTokens = async () => {
  const gateway = await gatewayWith();
  return until429(() => request(gateway.adminApp).get('/admin/plans').set('Host', '127.0.0.1').set('Authorization', 'Bearer not-the-admin-token-0123'));
};

/** An operator's own limit (GATEWAY_MIDDLEWARE) refusing every request, with the Retry-After it sets on the response, if any. */
const operatorMiddleware = async (retryAfter?: string) => {
  const gateway = await startGateway(
    {},
    {
      operatorMiddleware: [
        (_req, res, next) => {
          if (retryAfter !== undefined) res.setHeader('Retry-After', retryAfter);
          next(Object.assign(new Error('Over our own limit.'), { status: 429, code: 'operator_limit' }));
        },
      ],
    },
  );
  gateways.push(gateway);
  const { key } = await gateway.accounts.createKey((await gateway.accounts.createAccount({ name: 'Op', plan: 'pro' })).id);
  return until429(() => publicGet(gateway, '/v1/pets', '198.51.100.6', key), { tries: 1 });
};

describe('every 429 carries Retry-After', () => {
  it.each([
    ['/v1: the anonymous limit', anonymous],
    ['/v1: minted keys past the anonymous limit (the look-up gate)', mintedKeys],
    ["/v1: an account's limit", () => accountLimit('rate_limited')],
    ['/v1: a ban', () => accountLimit('temporarily_banned')],
    ['/v1: CORS preflights past PREFLIGHT_PER_MINUTE', preflights],
    ['portal: page requests per address', () => portalRequests('/portal')],
    ['portal: usage polls per address (JSON)', () => portalRequests('/portal/usage')],
    ['portal: sign-ups per address', signUps],
    ['portal: failed log-ins per address', logInFailures],
    ['portal: the 21st key created in a day', () => keyCreations('portal')],
    ['admin API: the 21st key created in a day', () => keyCreations('admin')],
    ['admin API: wrong tokens', adminTokens],
    ["/v1: the operator's middleware (GATEWAY_MIDDLEWARE), without a Retry-After of its own", () => operatorMiddleware()],
  ])('when %s refuses a request, then the answer is 429 with Retry-After in whole seconds, at least 1', async (_case, refuse) => {
    const response = await refuse();
    expect(response.status).toBe(429);
    expect(response.headers['retry-after']).toMatch(/^[1-9][0-9]*$/);
  });

  it("when the operator's middleware set its own Retry-After before refusing 429, then that one is kept", async () => {
    expect((await operatorMiddleware('30')).headers['retry-after']).toBe('30');
  });
});
