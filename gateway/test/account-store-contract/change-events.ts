import type { ChangeEvent } from '../../src/accounts/types';
import type { AccountRecords, ChangeFeed, KeyRecords, PlanRecords } from '../../src/accounts/account-store';
import { newKeyId } from '../../src/keys/api-key';
import { aKey, anAccount } from '../support/account-records';
import { heard, recordChanges } from './store-under-test';

/** The change feed: one event per write, none for a refused one, heard by every listener that is still subscribed. */
export function changeEventsContract(store: AccountRecords & ChangeFeed & KeyRecords & PlanRecords): void {
  describe('change events', () => {
    it('when accounts, keys and plans are written, then listeners hear one event per write, in order', async () => {
      const { events } = recordChanges(store);
      const account = anAccount();
      const key = aKey(account.id);
      await store.createAccount(account);
      await store.updateAccount({ ...account, perMinute: 7 });
      await store.addKey(key);
      await store.revokeKey(key.id, '2026-02-03T04:05:06.000Z');
      await store.setPlan({ name: 'business', perMinute: 2_000, perDay: 200_000 });
      const expected: ChangeEvent[] = [
        { type: 'account-created', accountId: account.id },
        { type: 'account', accountId: account.id },
        { type: 'key-added', keyId: key.id, hash: key.hash },
        { type: 'key', keyId: key.id, hash: key.hash },
        { type: 'plan', plan: 'business' },
      ];
      await heard(events, expected);
      expect(events).toEqual(expected);
    });

    it('when a write is refused, then no event is published', async () => {
      const account = anAccount();
      const { events } = recordChanges(store);
      await store.createAccount(account);
      await heard(events, [{ type: 'account-created', accountId: account.id }]); // may arrive late from Redis: wait, then start afresh
      events.length = 0;
      await expect(store.createAccount(account)).rejects.toThrow();
      await expect(store.updateAccount(anAccount())).rejects.toThrow();
      await store.revokeKey(newKeyId(), '2026-02-03T04:05:06.000Z');
      await store.setPlan({ name: 'free', perMinute: 61, perDay: 1_001 }); // a marker: everything before it has been delivered
      await heard(events, [{ type: 'plan', plan: 'free' }]);
      expect(events).toEqual([{ type: 'plan', plan: 'free' }]);
    });

    it('when an event is announced, then every listener hears it', async () => {
      const { events } = recordChanges(store);
      const event = { type: 'ban-lifted', accountId: 'acct_00000000000000000001', keyId: 'key_00000000000000000001' } as const;
      await store.announce(event);
      await heard(events, [event]);
    });

    it('when two listeners subscribe and one unsubscribes, then only the other keeps hearing', async () => {
      const first = recordChanges(store);
      const second = recordChanges(store);
      await store.setPlan({ name: 'free', perMinute: 61, perDay: 1_001 });
      await heard(first.events, [{ type: 'plan', plan: 'free' }]);
      await heard(second.events, [{ type: 'plan', plan: 'free' }]);
      first.stop();
      await store.setPlan({ name: 'pro', perMinute: 301, perDay: 10_001 });
      await heard(second.events, [{ type: 'plan', plan: 'pro' }]);
      expect(first.events).toEqual([{ type: 'plan', plan: 'free' }]);
    });

    it('when a listener throws, then the write still succeeds and other listeners still hear it', async () => {
      store.onChange(() => {
        throw new Error('listener bug');
      });
      const { events } = recordChanges(store);
      await store.setPlan({ name: 'free', perMinute: 61, perDay: 1_001 });
      await heard(events, [{ type: 'plan', plan: 'free' }]);
    });
  });
}
