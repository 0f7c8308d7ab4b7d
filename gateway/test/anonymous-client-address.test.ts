import type { Gateway } from '../src/gateway';
import { limitsOf, publicGet, startGateway } from './support/gateway';

/**
 * The anonymous per-IP budget, by client address as a trusted proxy reports it in X-Forwarded-For
 * (TRUST_PROXY=loopback): IPv6 clients share one budget per network (a /64 by default), IPv4 ones
 * per address, and an IPv4 client written as IPv4-mapped IPv6 is the same client.
 */
const ANON = 3;

async function spend(gateway: Gateway, ip: string): Promise<void> {
  for (let i = 0; i < ANON; i++) expect((await publicGet(gateway, '/v1/pets', ip)).status).toBe(401);
}

async function remainingFor(gateway: Gateway, ip: string): Promise<{ status: number; remaining: number }> {
  const res = await publicGet(gateway, '/v1/pets', ip);
  return { status: res.status, remaining: limitsOf(res).remaining };
}

describe('anonymous budgets by client address', () => {
  let gateway: Gateway;
  afterEach(() => gateway.close());

  it('when two IPv6 addresses are in one /64, then they share one budget; an address in another /64 has its own', async () => {
    gateway = await startGateway({ ANON_PER_MINUTE: String(ANON) });
    await spend(gateway, '2001:db8:aa:1::1');
    expect(await remainingFor(gateway, '2001:db8:aa:1:ffff:ffff:ffff:ffff')).toEqual({ status: 429, remaining: 0 });
    expect(await remainingFor(gateway, '2001:db8:aa:2::1')).toEqual({ status: 401, remaining: ANON - 1 });
  });

  it('when ANON_IPV6_PREFIX_LENGTH is 48, then two /64s of one /48 share a budget and another /48 does not', async () => {
    gateway = await startGateway({ ANON_PER_MINUTE: String(ANON), ANON_IPV6_PREFIX_LENGTH: '48' });
    await spend(gateway, '2001:db8:bb:1::1');
    expect(await remainingFor(gateway, '2001:db8:bb:2::1')).toEqual({ status: 429, remaining: 0 });
    expect(await remainingFor(gateway, '2001:db8:bc:1::1')).toEqual({ status: 401, remaining: ANON - 1 });
  });

  it('when ANON_IPV6_PREFIX_LENGTH is 128, then every IPv6 address has its own budget', async () => {
    gateway = await startGateway({ ANON_PER_MINUTE: String(ANON), ANON_IPV6_PREFIX_LENGTH: '128' });
    await spend(gateway, '2001:db8:cc:1::1');
    expect(await remainingFor(gateway, '2001:db8:cc:1::2')).toEqual({ status: 401, remaining: ANON - 1 });
  });

  it('when an IPv4 client is written as itself or as IPv4-mapped IPv6, then it is one client; IPv4 neighbours are not', async () => {
    gateway = await startGateway({ ANON_PER_MINUTE: String(ANON) });
    await spend(gateway, '192.0.2.10');
    expect(await remainingFor(gateway, '::ffff:192.0.2.10')).toEqual({ status: 429, remaining: 0 });
    expect(await remainingFor(gateway, '192.0.2.11')).toEqual({ status: 401, remaining: ANON - 1 });
  });
});
