import { accountsContract } from './account-store-contract/accounts';
import { changeEventsContract } from './account-store-contract/change-events';
import { keyLifecycleContract } from './account-store-contract/key-lifecycle';
import { keySetSeenContract } from './account-store-contract/key-set-seen';
import { keyUseContract } from './account-store-contract/key-use';
import { keysContract } from './account-store-contract/keys';
import { listingContract } from './account-store-contract/listing';
import { plansContract } from './account-store-contract/plans';
import { retiredKeysContract } from './account-store-contract/retired-keys';
import { resolveKeyContract } from './account-store-contract/resolve-key';
import { revocationContract } from './account-store-contract/revocation';
import { storeUnderTest, type OpenAccountStore } from './account-store-contract/store-under-test';

/**
 * The behaviour every AccountStore must have, one suite per part of it (`accounts/account-store.ts`)
 * so that a new backend can be built and checked part by part. Run by account-store.test.ts against
 * the in-process store and the Redis store, and by account-store-cluster.test.ts on a Redis Cluster,
 * so they cannot drift apart. `open` gives a fresh, empty store; the suite closes it after each
 * test. One file per concern, in account-store-contract/; a part that needs records of another part
 * to set up its case (an account before its keys) takes that part too.
 */
export function accountStoreContract(name: string, open: OpenAccountStore): void {
  describe(`${name} (AccountStore contract)`, () => {
    const store = storeUnderTest(open);
    describe('KeyResolutionStore', () => {
      resolveKeyContract(store);
    });
    describe('AccountRecords', () => {
      accountsContract(store);
      listingContract(store);
    });
    describe('KeyRecords', () => {
      keysContract(store);
      revocationContract(store);
      retiredKeysContract(store);
      keyLifecycleContract(store);
      keySetSeenContract(store);
    });
    describe('PlanRecords', () => {
      plansContract(store);
    });
    describe('KeyUseRecords', () => {
      keyUseContract(store);
    });
    describe('ChangeFeed', () => {
      changeEventsContract(store);
    });
  });
}
