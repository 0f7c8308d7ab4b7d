import { admin, createAccountWithKey, startSystem, type SystemHandle } from '../helpers/system';

let system: SystemHandle;

beforeAll(async () => {
  system = await startSystem({ redis: true, replicas: 2 });
});
afterAll(async () => {
  await system?.stop();
});

const get = (url: string, key: string) => fetch(`${url}/v1/pets`, { headers: { authorization: `Bearer ${key}` } });

/** Polls until `check` holds on every replica; returns how long it took. */
async function msUntil(check: (url: string) => Promise<boolean>): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < 3_000) {
    const results = await Promise.all(system.gateways.map((g) => check(g.url)));
    if (results.every(Boolean)) return Date.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return Infinity;
}

describe('two gateway replicas sharing one Redis', () => {
  it('when a key is created on one replica, then it works on both; when revoked, both refuse it within 1 s', async () => {
    const [a, b] = system.gateways as [SystemHandle['gateways'][0], SystemHandle['gateways'][0]];
    const { key, keyId } = await createAccountWithKey(a.adminUrl);
    // Used on both first, so both replicas hold it in their caches.
    expect((await get(a.url, key)).status).toBe(200);
    expect((await get(b.url, key)).status).toBe(200);

    expect((await admin(a.adminUrl, 'DELETE', `/admin/keys/${keyId}`)).status).toBe(204);

    expect(await msUntil(async (url) => (await get(url, key)).status === 401)).toBeLessThan(1_000);
  });

  it('when a plan changes through one replica, then both apply the new quota within 1 s, without a restart', async () => {
    const [a, b] = system.gateways as [SystemHandle['gateways'][0], SystemHandle['gateways'][0]];
    const { key } = await createAccountWithKey(b.adminUrl, { plan: 'pro' });
    expect((await get(a.url, key)).headers.get('ratelimit-policy')).toContain('"minute";q=300');
    expect((await get(b.url, key)).headers.get('ratelimit-policy')).toContain('"minute";q=300');

    expect((await admin(a.adminUrl, 'PUT', '/admin/plans/pro', { perMinute: 450, perDay: 12_000 })).status).toBe(200);

    const elapsed = await msUntil(async (url) => (await get(url, key)).headers.get('ratelimit-policy') === '"minute";q=450;w=60, "day";q=12000;w=86400');
    expect(elapsed).toBeLessThan(1_000);
    const plans = await admin<Array<{ name: string; perMinute: number }>>(b.adminUrl, 'GET', '/admin/plans');
    expect(plans.body.find((p) => p.name === 'pro')).toEqual({ name: 'pro', perMinute: 450, perDay: 12_000 });
  });

  it('when an account gets an override through one replica, then both apply it within 1 s', async () => {
    const [a, b] = system.gateways as [SystemHandle['gateways'][0], SystemHandle['gateways'][0]];
    const { key, accountId } = await createAccountWithKey(a.adminUrl);
    await get(a.url, key);
    await get(b.url, key);
    expect((await admin(b.adminUrl, 'PATCH', `/admin/accounts/${accountId}`, { perMinute: 7 })).status).toBe(200);
    expect(await msUntil(async (url) => (await get(url, key)).headers.get('ratelimit-policy')?.startsWith('"minute";q=7;') ?? false)).toBeLessThan(1_000);
  });

  it('when an account is created on one replica, then the other shows it with its usage', async () => {
    const [a, b] = system.gateways as [SystemHandle['gateways'][0], SystemHandle['gateways'][0]];
    const { key, accountId } = await createAccountWithKey(a.adminUrl);
    await get(a.url, key);
    await get(b.url, key);
    const shown = await admin<{ usage: { minute: { used: number }; day: { used: number } } }>(b.adminUrl, 'GET', `/admin/accounts/${accountId}`);
    expect(shown.status).toBe(200);
    expect(shown.body.usage.minute.used).toBe(2);
    expect(shown.body.usage.day.used).toBe(2);
  });
});
