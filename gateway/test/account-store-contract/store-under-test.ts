import type { ApiKeyRecord, ChangeEvent } from '../../src/accounts/types';
import type { AccountStore, ChangeFeed, KeyResolutionStore } from '../../src/accounts/account-store';
import { waitFor } from '../../../test/helpers/ports';

/** Gives a fresh, empty store of the kind under test. */
export type OpenAccountStore = () => Promise<AccountStore>;

/**
 * The store every test of the enclosing `describe` runs against: opened fresh before each test,
 * closed after it. What is returned stands for the current test's store, so the contract's parts
 * take it once, when they declare their tests, and use it inside them as the store itself.
 */
export function storeUnderTest(open: OpenAccountStore): AccountStore {
  let current: AccountStore | undefined;

  beforeEach(async () => {
    current = await open();
  });

  afterEach(async () => {
    await current?.close();
    current = undefined;
  });

  return new Proxy({} as AccountStore, {
    get(_, property) {
      if (!current) throw new Error('the store under test is opened before each test, and used only inside one');
      const value = Reflect.get(current, property) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(current) : value;
    },
  });
}

/** Every change event `store` publishes from now on, until `stop`. */
export function recordChanges(store: Pick<ChangeFeed, 'onChange'>): { events: ChangeEvent[]; stop: () => void } {
  const events: ChangeEvent[] = [];
  const stop = store.onChange((event) => events.push(event));
  return { events, stop };
}

/** Waits until `events` hold all of `expected`: a Redis store's events arrive over pub/sub, after the write returns. */
export const heard = (events: ChangeEvent[], expected: ChangeEvent[]) =>
  waitFor(() => expected.every((event) => events.some((seen) => JSON.stringify(seen) === JSON.stringify(event))), 2_000, JSON.stringify(expected));

/** The key a hash names, through the store's hash index (`resolveKey`, authentication's look-up); null when none. */
export async function keyWithHash(store: KeyResolutionStore, hash: string): Promise<ApiKeyRecord | null> {
  return (await store.resolveKey(hash))?.key ?? null;
}
