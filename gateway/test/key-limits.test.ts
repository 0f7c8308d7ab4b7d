import request from 'supertest';
import { createLogger } from '../../shared/src/logger';
import { MemoryAccountStore } from '../src/accounts/memory-account-store';
import { PrincipalResolver } from '../src/accounts/principal-resolver';
import { resolveKey } from './support/resolve-key';
import { AccountService } from '../src/accounts/account-service';
import { KEY_LIMITS, type KeyLimits } from '../src/accounts/key-limits';
import { createAdminApp } from '../src/admin/app';
import { OpsReports } from '../src/accounts/reports';
import { MemoryAuditLog } from '../src/audit/audit-log';
import { hashApiKey } from '../src/keys/api-key';
import { expiryRefusal } from '../src/keys/key-policy';
import { MemoryLimiter } from '../src/limits/memory-limiter';
import { LocalUsageBoard } from '../src/usage/usage-board';
import { SHARED_TOKEN_ACTOR } from '../src/admin/tokens';

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
  return { store, accounts, advance, now: () => now };
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
    const { accounts, store, advance } = service({ retiredKept: 3 });
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
    advance(KEY_LIMITS.retiredRetentionMs - 1_000);
    await accounts.createKey(id);
    expect((await store.listKeys(id)).map((key) => key.id)).toContain(old.id);
    advance(2_000);
    await accounts.createKey(id);
    expect((await store.listKeys(id)).map((key) => key.id)).not.toContain(old.id);
  });

  it('when one key is rolled 19 times with no grace, then its 19 expired records are kept (the rule allows 20); rolled 19 more the next day, only the newest 20 retired stay; 30 days on, none does (issue 24, finding 6)', async () => {
    const { accounts, store, advance } = service();
    const id = await anAccount(accounts);
    let key = await accounts.createKey(id);
    const first = key;
    const rollRepeatedly = async () => {
      for (let i = 0; i < 19; i += 1) {
        advance(1_000);
        key = await accounts.rollKey(key.id, { gracePeriodSeconds: 0 });
      }
    };
    await rollRepeatedly();
    const day1 = await store.listKeys(id);
    expect(day1).toHaveLength(20);
    expect(day1.filter((record) => record.replacedBy !== undefined)).toHaveLength(19);
    advance(DAY);
    await rollRepeatedly();
    // Before: 39 records, none removed.
    expect(await store.listKeys(id)).toHaveLength(21);
    expect(await store.getKey(first.id)).toBeNull();
    advance(KEY_LIMITS.retiredRetentionMs);
    // Listing applies the rule too: nothing past its retention is shown or kept.
    expect((await accounts.listKeys(id)).map((view) => view.id)).toEqual([key.id]);
    expect((await store.listKeys(id)).map((record) => record.id)).toEqual([key.id]);
  });

  it('when a rolled key is past its grace period, then its refusal names the replacement while the record is kept; once the rule removes it, it is refused as any unknown key', async () => {
    const { accounts, store, advance, now } = service();
    const resolver = new PrincipalResolver({ store, now });
    const id = await anAccount(accounts);
    const old = await accounts.createKey(id);
    const rolled = await accounts.rollKey(old.id, { gracePeriodSeconds: 60 });
    // In its grace period the old key still works (neither retired nor counted against the active keys).
    expect(expiryRefusal((await resolveKey(resolver, old.key))!, now())).toBeUndefined();
    advance(61_000);
    await accounts.listKeys(id);
    expect(expiryRefusal((await resolveKey(resolver, old.key))!, now())?.message).toContain(`its replacement is key ${rolled.id}`);
    advance(KEY_LIMITS.retiredRetentionMs);
    await accounts.listKeys(id);
    expect(await store.getKey(old.id)).toBeNull();
    // The removal's change event dropped the cached principal: the gateway no longer knows the key.
    expect(await resolveKey(resolver, old.key)).toBeNull();
    expect(await resolveKey(resolver, rolled.key)).toMatchObject({ keyId: rolled.id });
    resolver.close();
  });

  it('when ops create keys through the admin API, then the same limits apply, in the Error shape with Retry-After', async () => {
    const { accounts, store } = service({ createdPerDay: 2 });
    const audit = new MemoryAuditLog();
    const app = createAdminApp({ service: accounts, reports: new OpsReports({ store, board: new LocalUsageBoard(), audit }), adminTokens: [{ name: SHARED_TOKEN_ACTOR, token: 'test-admin-token-0123456789' }], logger: createLogger('t', 'silent') });
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
