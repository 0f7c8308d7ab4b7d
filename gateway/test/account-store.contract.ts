import { accountsContract } from './account-store-contract/accounts';
import { changeEventsContract } from './account-store-contract/change-events';
import { keyLifecycleContract } from './account-store-contract/key-lifecycle';
import { keySetSeenContract } from './account-store-contract/key-set-seen';
import { keysContract } from './account-store-contract/keys';
import { listingContract } from './account-store-contract/listing';
import { plansContract } from './account-store-contract/plans';
import { retiredKeysContract } from './account-store-contract/retired-keys';
import { resolveKeyContract } from './account-store-contract/resolve-key';
import { revocationContract } from './account-store-contract/revocation';
import { storeUnderTest, type OpenAccountStore } from './account-store-contract/store-under-test';

/**
 * The behaviour every AccountStore must have. Run by account-store.test.ts against the in-process
 * store and the Redis store, and by account-store-cluster.test.ts on a Redis Cluster, so they
 * cannot drift apart. `open` gives a fresh, empty store; the suite closes it after each test.
 * One part per concern, in account-store-contract/.
 */
export function accountStoreContract(name: string, open: OpenAccountStore): void {
  describe(`${name} (AccountStore contract)`, () => {
    const store = storeUnderTest(open);
    accountsContract(store);
    keysContract(store);
    revocationContract(store);
    retiredKeysContract(store);
    keyLifecycleContract(store);
    keySetSeenContract(store);
    resolveKeyContract(store);
    listingContract(store);
    plansContract(store);
    changeEventsContract(store);
  });
}
