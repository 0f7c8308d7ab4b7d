import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { waitFor } from '../helpers/ports';
import { admin, createAccountWithKey, startSystem, type SystemHandle } from '../helpers/system';
import { call } from '../helpers/traffic';

/**
 * Accounts are data: with AOF on (`appendfsync everysec`), a Redis killed with SIGKILL and started
 * again on the same dir still has every account, key, revocation and plan change, and a gateway
 * that never saw them before authenticates every key from Redis alone.
 */
let system: SystemHandle;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'redis-aof-'));
  system = await startSystem({ redis: { args: ['--appendonly', 'yes', '--appendfsync', 'everysec', '--dir', dir] } });
});

afterAll(async () => {
  await system?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const getPets = (url: string, key: string) => call(`${url}/v1/pets`, { key });

describe('accounts survive a Redis crash with AOF', () => {
  it('when Redis is SIGKILLed and restarted on its AOF, then every key still authenticates through a fresh gateway, revocations and plan changes included', async () => {
    const gateway = system.gateways[0]!;
    const accounts = [];
    for (let i = 0; i < 10; i++) accounts.push(await createAccountWithKey(gateway.adminUrl, { name: `durable ${i}`, plan: i % 2 ? 'pro' : 'free' }));
    const enterprise = await createAccountWithKey(gateway.adminUrl, { plan: 'enterprise', perMinute: 77, perDay: 7_777 });
    const revoked = await createAccountWithKey(gateway.adminUrl);
    expect((await admin(gateway.adminUrl, 'DELETE', `/admin/keys/${revoked.keyId}`)).status).toBe(204);
    expect((await admin(gateway.adminUrl, 'PUT', '/admin/plans/pro', { perMinute: 321, perDay: 4_321 })).status).toBe(200);
    for (const { key } of [...accounts, enterprise]) expect((await getPets(gateway.url, key)).status).toBe(200);

    await system.redis!.aofWritten();
    await system.redis!.stop(); // SIGKILL
    await system.redis!.start(); // same port, same dir: it replays the AOF

    const fresh = await system.startGateway();
    for (const [i, { key }] of accounts.entries()) {
      const reply = await getPets(fresh.url, key);
      expect(reply.status).toBe(200);
      expect(reply.headers['ratelimit-policy']).toBe(i % 2 ? '"minute";q=321;w=60, "day";q=4321;w=86400' : '"minute";q=60;w=60, "day";q=1000;w=86400');
    }
    expect((await getPets(fresh.url, enterprise.key)).headers['ratelimit-policy']).toBe('"minute";q=77;w=60, "day";q=7777;w=86400');
    expect((await getPets(fresh.url, revoked.key)).status).toBe(401);
    const shown = await admin<{ name: string; plan: string }>(fresh.adminUrl, 'GET', `/admin/accounts/${accounts[3]!.accountId}`);
    expect(shown.body).toMatchObject({ name: 'durable 3', plan: 'pro' });

    // The gateway that lived through the crash goes back to Redis by itself and agrees.
    await waitFor(async () => (await call(`${gateway.url}/readyz`)).json?.['status'] === 'ready', 5_000, 'the old gateway back on Redis');
    expect((await getPets(gateway.url, accounts[0]!.key)).status).toBe(200);
  }, 30_000);
});
