import { randomInt } from 'node:crypto';
import { admin, createAccountWithKey, startSystem, type GatewayHandle, type SystemHandle } from '../helpers/system';
import { call, expectError, rateLimitOf, sequence, type CallOptions, type Reply } from '../helpers/traffic';

/**
 * Requests without a valid key are limited per client IP (ANON_PER_MINUTE), so key guessing is
 * limited too. The client IP comes from X-Forwarded-For only when TRUST_PROXY trusts the sender.
 *
 * Both gateways share one Redis, hence one per-IP counter: each test is its own client IP, either by
 * connecting from its own loopback address (127.0.0.N) or, behind the trusted proxy, through a fresh
 * X-Forwarded-For address.
 */
const ANON = 5;
let system: SystemHandle;
let direct: GatewayHandle;
let behindProxy: GatewayHandle;
let revokedKey: string;

beforeAll(async () => {
  system = await startSystem({ redis: true, gatewayEnv: { ANON_PER_MINUTE: String(ANON) } });
  direct = system.gateways[0]!;
  behindProxy = await system.startGateway({ TRUST_PROXY: '127.0.0.1' });
  const revoked = await createAccountWithKey(direct.adminUrl);
  expect((await admin(direct.adminUrl, 'DELETE', `/admin/keys/${revoked.keyId}`)).status).toBe(204);
  revokedKey = revoked.key;
});

afterAll(async () => {
  await system?.stop();
});

/** A documentation address (TEST-NET-3) nobody else in this run uses. */
const freshIp = () => `203.0.113.${randomInt(1, 255)}`;
let nextLoopback = 10;
/** A loopback address of its own for one test: a distinct client IP without any proxy header. */
const freshLoopback = () => `127.0.0.${nextLoopback++}`;

/** Without a key, with another scheme, with a malformed key, with a revoked key, with an empty one: all anonymous. */
const withoutValidKey = (i: number): CallOptions['headers'] =>
  [{}, { authorization: 'Basic dXNlcjpwYXNz' }, { authorization: 'Bearer wrong-key' }, { authorization: `Bearer ${revokedKey}` }, { authorization: 'Bearer ' }][i % 5];

function expectAnonymousUnauthorized(reply: Reply, remaining: number): void {
  expectError(reply, 401, 'unauthorized');
  expect(rateLimitOf(reply)).toMatchObject({ limit: ANON, remaining, policy: `"minute";q=${ANON};w=60`, rateLimit: { name: 'minute', r: remaining } });
}

function expectAnonymousLimited(reply: Reply): void {
  expectError(reply, 429, 'rate_limited');
  expect(rateLimitOf(reply)).toMatchObject({ limit: ANON, remaining: 0, policy: `"minute";q=${ANON};w=60` });
  expect(Number(reply.headers['retry-after'])).toBeGreaterThanOrEqual(1);
}

describe('anonymous per-IP limit (real processes, real Redis)', () => {
  it('when one client IP sends requests without a valid key, then the first 5 get 401 with the anonymous headers and the 6th gets 429 rate_limited', async () => {
    const localAddress = freshLoopback();
    const replies = await sequence(7, (i) => call(`${direct.url}/v1/pets`, { localAddress, headers: withoutValidKey(i) }));

    replies.slice(0, ANON).forEach((reply, i) => expectAnonymousUnauthorized(reply, ANON - 1 - i));
    expectAnonymousLimited(replies[5]!);
    expectAnonymousLimited(replies[6]!);
  });

  it('when TRUST_PROXY trusts the proxy, then each X-Forwarded-For client has its own anonymous limit', async () => {
    const [first, second] = [freshIp(), `198.51.100.${randomInt(1, 255)}`];
    const fromFirst = await sequence(ANON + 1, () => call(`${behindProxy.url}/v1/pets`, { headers: { 'x-forwarded-for': first } }));
    fromFirst.slice(0, ANON).forEach((reply, i) => expectAnonymousUnauthorized(reply, ANON - 1 - i));
    expectAnonymousLimited(fromFirst[ANON]!);

    // Another client behind the same proxy starts from a full window.
    expectAnonymousUnauthorized(await call(`${behindProxy.url}/v1/pets`, { headers: { 'x-forwarded-for': second } }), ANON - 1);
    // The client is the address the trusted proxy saw (the right-most untrusted one), not whatever the client put first.
    expectAnonymousLimited(await call(`${behindProxy.url}/v1/pets`, { headers: { 'x-forwarded-for': `10.9.8.7, ${first}` } }));
  });

  it('when TRUST_PROXY is set but the sender is not the trusted proxy, then its X-Forwarded-For is ignored', async () => {
    const localAddress = freshLoopback();
    const replies = await sequence(ANON + 1, () => call(`${behindProxy.url}/v1/pets`, { localAddress, headers: { 'x-forwarded-for': freshIp() } }));
    replies.slice(0, ANON).forEach((reply, i) => expectAnonymousUnauthorized(reply, ANON - 1 - i));
    expectAnonymousLimited(replies[ANON]!);
  });

  it('when TRUST_PROXY is not set, then varying X-Forwarded-For does not escape the limit', async () => {
    const localAddress = freshLoopback();
    const replies = await sequence(ANON + 2, (i) => call(`${direct.url}/v1/pets`, { localAddress, headers: { 'x-forwarded-for': `198.51.100.${i + 1}` } }));
    replies.slice(0, ANON).forEach((reply, i) => expectAnonymousUnauthorized(reply, ANON - 1 - i));
    expectAnonymousLimited(replies[ANON]!);
    expectAnonymousLimited(replies[ANON + 1]!);
  });
});
