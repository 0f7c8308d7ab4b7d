import type { RedisClient } from '../redis';
import { RECORD_KEY_USE } from './redis-account-scripts';

/** One store command under the store's deadline (`RedisAccountStore.run`). */
type StoreRun = <T>(command: () => Promise<T>) => Promise<T>;

/**
 * When each key was last used, in one hash (`RedisAccountKeys.lastUsed`: key id → Unix ms), as the
 * replicas flush it: a later time than the one recorded wins.
 */
export async function writeKeyUses(run: StoreRun, redis: RedisClient, lastUsed: string, uses: ReadonlyMap<string, number>): Promise<void> {
  const pairs = [...uses].flatMap(([keyId, at]) => [keyId, String(Math.trunc(at))]);
  // Batches keep each script call short however many keys one flush carries; each has its own deadline.
  for (let i = 0; i < pairs.length; i += 1_000) await run(() => redis.eval(RECORD_KEY_USE, 1, lastUsed, ...pairs.slice(i, i + 1_000)));
}

/** The recorded times of these keys; keys never recorded are absent. */
export async function readKeyUses(run: StoreRun, redis: RedisClient, lastUsed: string, keyIds: readonly string[]): Promise<Map<string, number>> {
  const found = new Map<string, number>();
  if (keyIds.length === 0) return found;
  const times = await run(() => redis.hmget(lastUsed, ...keyIds));
  keyIds.forEach((keyId, i) => {
    const at = Number(times[i]);
    if (times[i] !== null && Number.isFinite(at)) found.set(keyId, at);
  });
  return found;
}
