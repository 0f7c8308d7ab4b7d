import { waitFor } from '../helpers/ports';
import { admin, createAccountWithKey, startSystem, TEST_ADMIN_TOKEN, type SystemHandle } from '../helpers/system';
import { call } from '../helpers/traffic';

/**
 * Operations across real gateway processes from the compiled build: two replicas on one Redis.
 * The usage board and keys' last use are fed by each replica's own decisions and flushed in the
 * background, so either replica shows the account's whole use; the audit trail names the operator
 * whose token made a change, whichever replica they called.
 */
const ALICE = 'alice-e2e-token-0123456789';
let system: SystemHandle;

beforeAll(async () => {
  system = await startSystem({ redis: true, replicas: 2, gatewayEnv: { ADMIN_TOKENS: `alice:${ALICE}`, OPS_FLUSH_INTERVAL_MS: '200', BAN_THRESHOLD: '1000' } });
});

afterAll(async () => {
  await system?.stop();
});

async function get(adminUrl: string, path: string, token = TEST_ADMIN_TOKEN) {
  return call(`${adminUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });
}

describe('operations across two gateway replicas on Redis', () => {
  it('when one account is served by both replicas, then either shows its whole use, its refused key and the key\'s last use', async () => {
    const [a, b] = system.gateways;
    const { accountId, keyId, key } = await createAccountWithKey(a!.adminUrl, { name: 'Acme Two Replicas', plan: 'enterprise', perMinute: 6, perDay: 1_000 });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await call(`${a!.url}/v1/pets`, { key })).status);
    for (let i = 0; i < 4; i++) statuses.push((await call(`${b!.url}/v1/pets`, { key })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 429, 429]);

    for (const replica of [a!, b!]) {
      await waitFor(async () => {
        const top = (await get(replica.adminUrl, '/admin/usage/top?window=minute')).json as unknown as { accountId: string; used: number }[];
        return top.some((entry) => entry.accountId === accountId && entry.used === 6);
      }, 5_000, 'the minute board on both replicas');
    }
    const day = (await get(b!.adminUrl, '/admin/usage/top?window=day')).json as unknown as object[];
    expect(day).toContainEqual({ accountId, name: 'Acme Two Replicas', plan: 'enterprise', used: 6, quota: 1_000 });
    await waitFor(async () => {
      const refused = (await get(a!.adminUrl, '/admin/usage/refused')).json as unknown as { keyId: string; refused: number }[];
      return refused.some((entry) => entry.keyId === keyId && entry.refused === 2);
    }, 5_000, 'the refused keys');
    await waitFor(async () => {
      const keys = (await get(b!.adminUrl, `/admin/accounts/${accountId}/keys`)).json as unknown as { lastUsedAt: string | null }[];
      return keys[0]?.lastUsedAt !== null;
    }, 5_000, "the key's last use");
  });

  it("when alice raises Acme's quota on one replica, then the other replica's audit trail says so, and search finds Acme", async () => {
    const [a, b] = system.gateways;
    const { accountId } = await createAccountWithKey(a!.adminUrl, { name: 'Acme Audited', plan: 'pro' });
    const patched = await call(`${b!.adminUrl}/admin/accounts/${accountId}`, { method: 'PATCH', headers: { authorization: `Bearer ${ALICE}` }, body: { perDay: 50_000 } });
    expect(patched.status).toBe(200);

    const found = (await get(a!.adminUrl, '/admin/accounts?q=acme%20audited')).json as unknown as { id: string }[];
    expect(found.map((account) => account.id)).toEqual([accountId]);
    const trail = await admin<object[]>(a!.adminUrl, 'GET', `/admin/audit?account=${accountId}`);
    expect(trail.body[0]).toEqual({
      at: expect.any(String),
      actor: 'alice',
      action: 'account.updated',
      target: accountId,
      accountId,
      before: { perDay: null },
      after: { perDay: 50_000 },
    });
    expect(trail.body.map((entry) => (entry as { action: string }).action)).toEqual(['account.updated', 'key.created', 'account.created']);
  });

  it('when the console is asked for, then the compiled gateway serves it on the admin port and not on the public one', async () => {
    const [a] = system.gateways;
    const page = await call(`${a!.adminUrl}/console`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('ops console');
    expect((await call(`${a!.adminUrl}/console/console.js`)).status).toBe(200);
    expect((await call(`${a!.url}/console`)).status).toBe(404);
  });
});
