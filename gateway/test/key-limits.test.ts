import request from 'supertest';
import { createLogger } from '../../shared/src/logger';
import { MemoryAccountStore } from '../src/accounts/memory-account-store';
import { AccountService } from '../src/accounts/account-service';
import { KEY_LIMITS, type KeyLimits } from '../src/accounts/key-limits';
import { createAdminApp } from '../src/admin/app';
import { OpsReports } from '../src/accounts/reports';
import { MemoryAuditLog } from '../src/audit/audit-log';
import { hashApiKey } from '../src/keys/api-key';
import { MemoryLimiter } from '../src/limits/memory-limiter';
import { LocalUsageBoard } from '../src/usage/usage-board';

/**
 * Key limits per account, on every path (issue 17, item 3): one portal account made and revoked a
 * key 100 times in 1.3 s, and kept all 100 revoked keys.
 */
const DAY = 86_400_000;

function service(keyLimits: Partial<KeyLimits> = {}) {
  let now = Date.UTC(2026, 5, 1, 12);
  const store = new MemoryAccountStore();
  const accounts = new AccountService({ store, limiter: new MemoryLimiter({ threshold: 2, seconds: 900 }), audit: new MemoryAuditLog(), keyLimits, now: () => now });
  const advance = (ms: number) => (now += ms);
  return { store, accounts, advance };
}

async function anAccount(accounts: AccountService): Promise<string> {
  return (await accounts.createAccount({ name: 'Acme', plan: 'free' })).id;
}

describe('key limits (the account service: every path)', () => {
  it('when an account creates and revokes keys in a loop, then the 21st creation within 24 hours is refused 429 with Retry-After until the first leaves the window', async () => {
    const { accounts, advance } = service();
    const id = await anAccount(accounts);
    for (let i = 0; i < KEY_LIMITS.createdPerDay; i += 1) {
      const key = await accounts.createKey(id);
      await accounts.revokeKey(key.id);
      advance(1_000);
    }
    const refused = accounts.createKey(id);
    await expect(refused).rejects.toMatchObject({ code: 'rate_limited', status: 429, message: expect.stringContaining('has created 20 keys in the last 24 hours') });
    const error = (await refused.catch((e: unknown) => e)) as { headers: Record<string, string> };
    expect(Number(error.headers['Retry-After'])).toBe(DAY / 1000 - 20);
    advance(DAY - 19_000);
    await expect(accounts.createKey(id)).resolves.toMatchObject({ accountId: id });
  });

  it('when an account holds the most active keys, then one more is refused 400 naming the account', async () => {
    const { accounts } = service();
    const id = await anAccount(accounts);
    for (let i = 0; i < KEY_LIMITS.active; i += 1) await accounts.createKey(id);
    await expect(accounts.createKey(id)).rejects.toMatchObject({ code: 'invalid_parameter', message: expect.stringContaining(`Account ${id} already has 10 active keys`) });
  });

  it('when many creations arrive at once, then no more than the limit are made', async () => {
    const { accounts, store } = service();
    const id = await anAccount(accounts);
    const results = await Promise.allSettled(Array.from({ length: 30 }, () => accounts.createKey(id)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(KEY_LIMITS.active);
    expect(await store.listKeys(id)).toHaveLength(KEY_LIMITS.active);
  });

  it('when more keys are revoked than are kept, then the oldest revoked ones are removed for good; active ones stay', async () => {
    const { accounts, store, advance } = service({ revokedKept: 3 });
    const id = await anAccount(accounts);
    const active = await accounts.createKey(id);
    const revoked: string[] = [];
    for (let i = 0; i < 6; i += 1) {
      const key = await accounts.createKey(id);
      advance(1_000);
      await accounts.revokeKey(key.id);
      revoked.push(key.key);
    }
    const kept = await store.listKeys(id);
    expect(kept.map((key) => key.id)).toContain(active.id);
    expect(kept.filter((key) => key.revokedAt !== null)).toHaveLength(3);
    // The removed ones are unknown to authentication now (answered like revoked ones).
    expect(await store.resolveKey(hashApiKey(revoked[0]!))).toBeNull();
    expect(await store.resolveKey(hashApiKey(revoked[5]!))).not.toBeNull();
  });

  it('when a revoked key is older than the retention, then it is removed at the next change of the account\'s keys', async () => {
    const { accounts, store, advance } = service();
    const id = await anAccount(accounts);
    const old = await accounts.createKey(id);
    await accounts.revokeKey(old.id);
    advance(KEY_LIMITS.revokedRetentionMs - 1_000);
    await accounts.createKey(id);
    expect((await store.listKeys(id)).map((key) => key.id)).toContain(old.id);
    advance(2_000);
    await accounts.createKey(id);
    expect((await store.listKeys(id)).map((key) => key.id)).not.toContain(old.id);
  });

  it('when ops create keys through the admin API, then the same limits apply, in the Error shape with Retry-After', async () => {
    const { accounts, store } = service({ createdPerDay: 2 });
    const audit = new MemoryAuditLog();
    const app = createAdminApp({ service: accounts, reports: new OpsReports({ store, board: new LocalUsageBoard(), audit }), adminToken: 'test-admin-token-0123456789', logger: createLogger('t', 'silent') });
    const id = await anAccount(accounts);
    const post = () => request(app).post(`/admin/accounts/${id}/keys`).set('Authorization', 'Bearer test-admin-token-0123456789');
    expect((await post()).status).toBe(201);
    expect((await post()).status).toBe(201);
    const refused = await post();
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ code: 'rate_limited', status: 429, message: expect.stringContaining('has created 2 keys in the last 24 hours') });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
  });
});
