import { signServiceToken } from '../../shared/src/internal-token';
import { createAccountWithKey, startSystem, TEST_ADMIN_TOKEN, TEST_SECRET, type SystemHandle } from '../helpers/system';

let system: SystemHandle;
beforeAll(async () => {
  system = await startSystem();
});
afterAll(() => system?.stop());

describe('who the pets-service trusts', () => {
  it('when a client calls the pets-service directly with its API key, then 401', async () => {
    const { key } = await createAccountWithKey(system.gateways[0]!.adminUrl);
    const response = await fetch(`${system.petsUrl}/pets`, { headers: { authorization: `Bearer ${key}` } });
    expect(response.status).toBe(401);
    expect(((await response.json()) as { code: string }).code).toBe('unauthorized');
  });

  it('when nothing or the admin token is sent, then 401', async () => {
    expect((await fetch(`${system.petsUrl}/pets`)).status).toBe(401);
    expect((await fetch(`${system.petsUrl}/pets`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } })).status).toBe(401);
  });

  it('when an internal service signs its own token with the shared helper, then it is served', async () => {
    const token = signServiceToken('reports', TEST_SECRET);
    const response = await fetch(`${system.petsUrl}/pets`, { headers: { authorization: `Bearer ${token}` } });
    expect(response.status).toBe(200);
  });

  it('when a token is signed with another secret, then 401', async () => {
    const token = signServiceToken('reports', 'another-secret-that-is-long-enough-000');
    expect((await fetch(`${system.petsUrl}/pets`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(401);
  });
});

describe('the admin port', () => {
  it('when the admin token is missing, wrong or of another scheme, then 401 unauthorized', async () => {
    const { adminUrl } = system.gateways[0]!;
    for (const authorization of [undefined, 'Bearer wrong-token', `Basic ${TEST_ADMIN_TOKEN}`, `Bearer ${TEST_ADMIN_TOKEN}x`]) {
      const response = await fetch(`${adminUrl}/admin/plans`, { headers: authorization ? { authorization } : {} });
      expect(response.status).toBe(401);
      expect(((await response.json()) as { code: string }).code).toBe('unauthorized');
    }
  });

  it('when metrics are scraped with the admin token, then Prometheus text is served; without it, 401', async () => {
    const { adminUrl, url } = system.gateways[0]!;
    await fetch(`${url}/v1/pets`);
    expect((await fetch(`${adminUrl}/metrics`)).status).toBe(401);
    const response = await fetch(`${adminUrl}/metrics`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } });
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toContain('gateway_http_requests_total');
    expect(text).toContain('gateway_rate_limit_decisions_total{outcome="allowed",caller="anonymous"}');
    expect(text).toContain('gateway_rate_limiter_degraded 0');
  });

  it('when readiness is asked, then it names the limiter mode', async () => {
    const response = await fetch(`${system.gateways[0]!.url}/readyz`);
    expect(await response.json()).toEqual({ status: 'ready', rateLimiter: 'in-process' });
  });
});
