import { MemoryAuditLog } from '../../src/audit/audit-log';
import { AccountService } from '../../src/accounts/account-service';
import { MemoryAccountStore } from '../../src/accounts/memory-account-store';
import { PrincipalResolver } from '../../src/accounts/principal-resolver';
import type { AccountStore } from '../../src/accounts/account-store';
import { MemoryLimiter } from '../../src/limits/memory-limiter';
import { StoreUnavailableError } from '../../src/store-errors';

/** The limiter an AccountService needs; these tests never ban. */
export const limiter = () => new MemoryLimiter({ threshold: null, seconds: 900 });

/** A real store that counts the calls made to it (and can be made to fail), so tests can tell a cache hit from a lookup. */
export function counted(store: AccountStore) {
  const calls: string[] = [];
  let failing = false;
  let gate: Promise<void> | undefined;
  const proxy = new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== 'function' || property === 'onChange' || property === 'close') {
        return typeof value === 'function' ? value.bind(target) : value;
      }
      return async (...args: unknown[]) => {
        calls.push(String(property));
        if (gate) await gate;
        if (failing) throw new StoreUnavailableError('store down (test)');
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return {
    store: proxy,
    calls,
    fail: (on: boolean) => {
      failing = on;
    },
    /** Holds every store call until the returned function is called. */
    hold: () => {
      let release!: () => void;
      gate = new Promise((resolve) => (release = resolve));
      return () => {
        gate = undefined;
        release();
      };
    },
  };
}

/** A new account on `plan` (with `numbers` as its overrides) and one key of it, through the account service. */
export async function withKey(service: AccountService, plan: 'free' | 'pro' | 'enterprise' = 'free', numbers: { perMinute?: number; perDay?: number } = {}) {
  const account = await service.createAccount({ name: 'Test', plan, ...numbers });
  const key = await service.createKey(account.id);
  return { account, key };
}

/**
 * A resolver on an in-process store, and what a test needs around it: the store itself (`memory`,
 * to write past the resolver), the counted view the resolver reads through (`spy`), the account
 * service on the store, a clock the test moves (`clock.now`), and the accounts the resolver told
 * the limiter hook about (`quotaChanges`).
 */
function resolverOnMemoryStore() {
  const memory = new MemoryAccountStore();
  const spy = counted(memory);
  const service = new AccountService({ store: memory, limiter: limiter(), audit: new MemoryAuditLog() });
  const clock = { now: 1_000_000 };
  const quotaChanges: (string | null)[] = [];
  const resolver = new PrincipalResolver({ store: spy.store, now: () => clock.now, onQuotaChange: (id) => quotaChanges.push(id) });
  return { memory, spy, service, clock, quotaChanges, resolver };
}

/**
 * `resolverOnMemoryStore` afresh for each test of the enclosing file or `describe`, its resolver
 * closed after the test. The object returned is filled in before each test: read it inside one.
 */
export function useResolverOnMemoryStore(): ReturnType<typeof resolverOnMemoryStore> {
  const setup = {} as ReturnType<typeof resolverOnMemoryStore>;
  beforeEach(() => {
    Object.assign(setup, resolverOnMemoryStore());
  });
  afterEach(() => setup.resolver.close());
  return setup;
}
