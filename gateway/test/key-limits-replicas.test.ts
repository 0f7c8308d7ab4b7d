import { MemoryAccountStore } from '../src/accounts/memory-account-store';
import { RedisAccountStore } from '../src/accounts/redis-account-store';
import { AccountService } from '../src/accounts/account-service';
import { KEY_LIMITS, type KeyLimits } from '../src/accounts/key-limits';
import { MemoryAuditLog } from '../src/audit/audit-log';
import { MemoryLimiter } from '../src/limits/memory-limiter';
import { aKey } from './support/account-records';
import { useRedis } from './support/redis';

/**
 * The key limits with several gateway replicas on one Redis: each replica runs one account's key
 * changes one at a time, but two replicas at once used to pass the caps by one each (both read 9
 * active keys, both wrote a 10th). The store now writes a key only if the account's keys are as the
 * replica read them, and the replica that lost decides again.
 */
const redis = useRedis();
const stores: RedisAccountStore[] = [];

afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
});

/** A gateway replica's account service over its own connection to the shared Redis. */
async function replica(keyLimits: Partial<KeyLimits> = {}): Promise<AccountService> {
  const store = await RedisAccountStore.connect(redis.url);
  stores.push(store);
  return new AccountService({ store, limiter: new MemoryLimiter({ threshold: 2, seconds: 900 }), audit: new MemoryAuditLog(), keyLimits });
}

describe('key limits across replicas sharing Redis', () => {
  beforeEach(() => redis.reset());

  it('when three replicas create keys for one account at once, then exactly the most active keys are made, the rest refused 400', async () => {
    const replicas = [await replica(), await replica(), await replica()];
    const { id } = await replicas[0]!.createAccount({ name: 'Acme', plan: 'free' });
    const attempts = await Promise.allSettled(Array.from({ length: 15 }, (_, i) => replicas[i % replicas.length]!.createKey(id)));
    const made = attempts.filter((attempt) => attempt.status === 'fulfilled');
    const refused = attempts.filter((attempt): attempt is PromiseRejectedResult => attempt.status === 'rejected');
    expect(made).toHaveLength(KEY_LIMITS.active);
    expect(refused.map((attempt) => (attempt.reason as { status?: number }).status)).toEqual(Array(15 - KEY_LIMITS.active).fill(400));
    expect(await replicas[1]!.listKeys(id)).toHaveLength(KEY_LIMITS.active);
  });

  it('when one replica rolls a key while another creates one, then together they stay within the keys an account may create in a day', async () => {
    const limits = { createdPerDay: 2 };
    const [a, b] = [await replica(limits), await replica(limits)];
    // Ten accounts at once, each with one key made and room for one more today: a roll on one
    // replica and a creation on the other, both asked at the same moment; one of the two is refused.
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, async () => {
        const { id } = await a.createAccount({ name: 'Acme', plan: 'free' });
        const first = await a.createKey(id);
        const [rolled, created] = await Promise.allSettled([a.rollKey(first.id, { gracePeriodSeconds: 60 }), b.createKey(id)]);
        return { made: [rolled, created].filter((outcome) => outcome.status === 'fulfilled').length, keys: (await a.listKeys(id)).length };
      }),
    );
    expect(outcomes).toEqual(Array(10).fill({ made: 1, keys: 2 }));
  });

  it('when other replicas keep adding keys between every read and write, then the creation gives up with 503 service_unavailable and Retry-After, not a 500', async () => {
    /** A store where another replica's key lands right after each reading of the account's keys. */
    class BusyStore extends MemoryAccountStore {
      // The creation reads the keys as the pruning of retired ones leaves them.
      override async pruneRetiredKeys(...args: Parameters<MemoryAccountStore['pruneRetiredKeys']>) {
        const keys = await super.pruneRetiredKeys(...args);
        await super.addKey(aKey(args[0]));
        return keys;
      }
    }
    const accounts = new AccountService({ store: new BusyStore(), limiter: new MemoryLimiter({ threshold: 2, seconds: 900 }), audit: new MemoryAuditLog(), keyLimits: { active: 1_000, createdPerDay: 1_000 } });
    const { id } = await accounts.createAccount({ name: 'Acme', plan: 'free' });
    await expect(accounts.createKey(id)).rejects.toMatchObject({ status: 503, code: 'service_unavailable', headers: { 'Retry-After': '1' } });
  });
});
