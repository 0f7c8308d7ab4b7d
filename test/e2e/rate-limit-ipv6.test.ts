import { startSystem, type GatewayHandle, type SystemHandle } from '../helpers/system';
import { call, expectError, rateLimitOf, sequence, type Reply } from '../helpers/traffic';

/**
 * The anonymous per-IP budget for IPv6 clients, over real sockets: the gateway listens on `::`
 * (both families), so a client reaches it over IPv6 at [::1] and over IPv4 at 127.0.0.1 (which the
 * dual-stack socket reports as ::ffff:127.0.0.N). TRUST_PROXY=loopback makes loopback senders a
 * trusted proxy, so X-Forwarded-For can name any client address.
 */
const ANON = 3;
let system: SystemHandle;
let gateway: GatewayHandle;
let ipv6Url: string;

beforeAll(async () => {
  system = await startSystem({ gatewayEnv: { HOST: '::', TRUST_PROXY: 'loopback', ANON_PER_MINUTE: String(ANON) } });
  gateway = system.gateways[0]!;
  ipv6Url = `http://[::1]:${gateway.port}`;
});

afterAll(async () => {
  await system?.stop();
});

const fromClient = (client: string): Promise<Reply> => call(`${ipv6Url}/v1/pets`, { headers: { 'x-forwarded-for': client } });

/** The answer to an anonymous request sent when its client had `left` requests of its budget left. */
function expectSentWithBudgetLeft(reply: Reply, left: number): void {
  if (left === 0) expectError(reply, 429, 'rate_limited');
  else expectError(reply, 401, 'unauthorized');
  expect(rateLimitOf(reply)).toMatchObject({ limit: ANON, remaining: Math.max(0, left - 1) });
}

describe('anonymous budgets of IPv6 clients (real process, real sockets)', () => {
  it('when two addresses of one /64 send requests over IPv6, then they share one budget; an address of another /64 has its own', async () => {
    (await sequence(ANON, () => fromClient('2001:db8:1:1::a'))).forEach((reply, i) => expectSentWithBudgetLeft(reply, ANON - i));
    expectSentWithBudgetLeft(await fromClient('2001:db8:1:1:ffff:ffff:ffff:fffe'), 0);
    expectSentWithBudgetLeft(await fromClient('2001:db8:1:2::a'), ANON);
  });

  it('when an IPv4 client connects to the dual-stack socket (seen as ::ffff:127.0.0.N), then it is the same client as that IPv4 address named by a proxy', async () => {
    const localAddress = '127.0.0.42';
    const direct = await sequence(ANON, () => call(`http://127.0.0.1:${gateway.port}/v1/pets`, { localAddress }));
    direct.forEach((reply, i) => expectSentWithBudgetLeft(reply, ANON - i));
    expectSentWithBudgetLeft(await fromClient(localAddress), 0);
    expectSentWithBudgetLeft(await fromClient(`::ffff:${localAddress}`), 0);
    expectSentWithBudgetLeft(await fromClient('127.0.0.43'), ANON);
  });

  it('when a client connects over IPv6 without a proxy header, then its socket address is its /64', async () => {
    (await sequence(ANON, () => call(`${ipv6Url}/v1/pets`))).forEach((reply, i) => expectSentWithBudgetLeft(reply, ANON - i));
    // ::1 is in ::/64, so a proxy naming another address of that network is the same client.
    expectSentWithBudgetLeft(await fromClient('::2'), 0);
  });
});
