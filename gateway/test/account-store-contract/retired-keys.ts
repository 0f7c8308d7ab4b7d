import { RETIRED_KEY_RETENTION } from '../../src/accounts/retired-keys';
import type { ApiKeyRecord } from '../../src/accounts/types';
import type { AccountRecords, ChangeFeed, KeyRecords, KeyResolutionStore, KeyUseRecords, PlanRecords } from '../../src/accounts/account-store';
import { aKey, anAccount } from '../support/account-records';
import { heard, recordChanges, keyWithHash } from './store-under-test';

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 2, 1);
const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Pruning retired keys (revoked, or expired: a rolled key past its grace period) by the one rule of
 * retired-keys.ts, the newest 20 kept and none past 30 days, on every store (issue 24, finding 6:
 * rolled keys were never removed, so rolling one key again and again piled records up).
 */
export function retiredKeysContract(store: AccountRecords & ChangeFeed & KeyRecords & KeyResolutionStore & KeyUseRecords & PlanRecords): void {
  describe('retired keys pruned', () => {
    /** A stored account with one active key. */
    async function anAccountWithAKey(overrides: Partial<ApiKeyRecord> = {}): Promise<ApiKeyRecord> {
      const account = anAccount();
      await store.createAccount(account);
      const key = aKey(account.id, { createdAt: iso(T0), ...overrides });
      await store.addKey(key);
      return key;
    }

    /** Rolls `key` `times` times with no grace, a second apart from `start`: each old key expires as it is replaced. Answers the last replacement. */
    async function rollRepeatedly(key: ApiKeyRecord, times: number, start: number): Promise<ApiKeyRecord> {
      let current = key;
      for (let i = 1; i <= times; i++) {
        const at = iso(start + i * 1_000);
        const replacement = aKey(key.accountId, { createdAt: at });
        expect(await store.rollKey({ keyId: current.id, replacement, expiresAt: at, at })).toMatchObject({ outcome: 'rolled' });
        current = replacement;
      }
      return current;
    }

    it('when one key is rolled 19 times with no grace and then 19 more the next day, then the newest 20 retired keys are kept; 30 days on, none is', async () => {
      const first = await anAccountWithAKey();
      const day1 = await rollRepeatedly(first, 19, T0);
      const afterDay1 = await store.pruneRetiredKeys(first.accountId, iso(T0 + 60_000), RETIRED_KEY_RETENTION);
      // The finding's state, which the rule allows: 20 records, 19 of them expired.
      expect(afterDay1).toHaveLength(20);
      const last = await rollRepeatedly(day1, 19, T0 + DAY);
      const afterDay2 = await store.pruneRetiredKeys(first.accountId, iso(T0 + DAY + 60_000), RETIRED_KEY_RETENTION);
      expect(afterDay2).toHaveLength(21);
      expect(afterDay2.filter((key) => key.expiresAt === undefined).map((key) => key.id)).toEqual([last.id]);
      // The 18 of the first day that expired longest ago went; the newest first-day one stayed.
      expect(afterDay2.map((key) => key.id)).not.toContain(first.id);
      expect(await store.listKeys(first.accountId)).toEqual(afterDay2);
      expect(await store.getKey(first.id)).toBeNull();
      expect(await store.resolveKey(first.hash)).toBeNull();
      const afterRetention = await store.pruneRetiredKeys(first.accountId, iso(T0 + 31 * DAY + 60_000), RETIRED_KEY_RETENTION);
      expect(afterRetention.map((key) => key.id)).toEqual([last.id]);
    });

    it('when revoked and expired keys are retired, then they count together, and the ones retired longest ago go first', async () => {
      const active = await anAccountWithAKey();
      const { accountId } = active;
      const expired = aKey(accountId, { createdAt: iso(T0), expiresAt: iso(T0 + 3_000) });
      const revoked = aKey(accountId, { createdAt: iso(T0) });
      const revokedEarly = aKey(accountId, { createdAt: iso(T0) });
      for (const key of [expired, revoked, revokedEarly]) await store.addKey(key);
      await store.revokeKey(revoked.id, iso(T0 + 2_000));
      await store.revokeKey(revokedEarly.id, iso(T0 + 1_000));
      const left = await store.pruneRetiredKeys(accountId, iso(T0 + 10_000), { retiredKept: 2, retiredRetentionMs: DAY });
      expect(left.map((key) => key.id).sort()).toEqual([active.id, expired.id, revoked.id].sort());
    });

    it('when a key still works (active, expiring later, a rolled key in its grace period), then it is never removed, whatever the rule keeps', async () => {
      const active = await anAccountWithAKey();
      const later = aKey(active.accountId, { expiresAt: iso(T0 + DAY) });
      await store.addKey(later);
      const replacement = aKey(active.accountId, { createdAt: iso(T0 + 1_000) });
      await store.rollKey({ keyId: later.id, replacement, expiresAt: iso(T0 + 3_600_000), at: iso(T0 + 1_000) });
      const left = await store.pruneRetiredKeys(active.accountId, iso(T0 + 2_000), { retiredKept: 0, retiredRetentionMs: 0 });
      expect(left.map((key) => key.id).sort()).toEqual([active.id, later.id, replacement.id].sort());
      // Once its grace period is over it is retired like any other.
      const after = await store.pruneRetiredKeys(active.accountId, iso(T0 + 3_600_000), { retiredKept: 0, retiredRetentionMs: 0 });
      expect(after.map((key) => key.id).sort()).toEqual([active.id, replacement.id].sort());
    });

    it('when a retired key is removed, then it is gone everywhere (record, hash, listing, last use) and a change is announced; other accounts are untouched', async () => {
      const kept = await anAccountWithAKey();
      const removed = aKey(kept.accountId, { createdAt: iso(T0 + 1_000) });
      await store.addKey(removed);
      const other = await anAccountWithAKey();
      await store.revokeKey(other.id, iso(T0));
      await store.recordKeyUse(new Map([[removed.id, 5_000]]));
      await store.revokeKey(removed.id, iso(T0 + 2_000));
      const { events, stop } = recordChanges(store);
      expect(await store.pruneRetiredKeys(kept.accountId, iso(T0 + 3_000), { retiredKept: 0, retiredRetentionMs: DAY })).toEqual([kept]);
      await heard(events, [{ type: 'key', keyId: removed.id, hash: removed.hash }]);
      stop();
      expect(await store.getKey(removed.id)).toBeNull();
      expect(await keyWithHash(store, removed.hash)).toBeNull();
      expect(await store.resolveKey(removed.hash)).toBeNull();
      expect(await store.listKeys(kept.accountId)).toEqual([kept]);
      expect(await store.keysLastUsed([removed.id])).toEqual(new Map());
      expect(await store.getKey(other.id)).not.toBeNull();
    });

    it('when nothing is retired, then nothing is removed or announced', async () => {
      const key = await anAccountWithAKey();
      const { events, stop } = recordChanges(store);
      expect(await store.pruneRetiredKeys(key.accountId, iso(T0 + 1_000), RETIRED_KEY_RETENTION)).toEqual([key]);
      expect(await store.pruneRetiredKeys(anAccount().id, iso(T0 + 1_000), RETIRED_KEY_RETENTION)).toEqual([]);
      // A write after them: once its event is heard, any event of theirs would have been too.
      await store.setPlan({ name: 'pro', perMinute: 1, perDay: 2 });
      await heard(events, [{ type: 'plan', plan: 'pro' }]);
      stop();
      expect(events.filter((event) => event.type === 'key')).toEqual([]);
    });
  });
}
