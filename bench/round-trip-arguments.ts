/**
 * The consume script's arguments for both round-trip yardsticks (`express-hop-redis.ts` on ioredis,
 * `express-hop-raw-redis.ts` on a bare socket): one account, one key, quotas no load reaches, no
 * ban, the key names built once. The script does its full work for an accepted request.
 */
import { RedisKeyNames } from '../gateway/src/limits/redis-key-names';
import { utcDay } from '../gateway/src/limits/windows';

export function consumeArguments(): (string | number)[] {
  const names = new RedisKeyNames('rl');
  const account = names.ofAccount('bench-hop-account', utcDay(Date.now()));
  const key = names.ofKey({ accountId: 'bench-hop-account', keyId: 'bench-hop-key' });
  return [account.minute, account.dayBefore, account.today, account.dayAfter, key.ban, key.rejections, account.day, 1e12, 1e15, 0, 900_000];
}
