import { RedisKeyNames } from './redis-key-names';

describe('RedisKeyNames, the request path\'s cached names', () => {
  const names = new RedisKeyNames('rl');

  it('when an account is named again on the same day, then the same names come back, equal to the ones built each time', () => {
    const first = names.ofAccount('acct_1', 20_000);
    expect(first).toEqual({ minute: 'rl:{acct_1}:minute', day: 20_000, dayBefore: 'rl:{acct_1}:day:19999', today: 'rl:{acct_1}:day:20000', dayAfter: 'rl:{acct_1}:day:20001' });
    expect(names.ofAccount('acct_1', 20_000)).toBe(first);
  });

  it('when the UTC day changes, then the day counters follow it', () => {
    names.ofAccount('acct_2', 20_000);
    expect(names.ofAccount('acct_2', 20_001)).toMatchObject({ day: 20_001, dayBefore: 'rl:{acct_2}:day:20000', today: 'rl:{acct_2}:day:20001', dayAfter: 'rl:{acct_2}:day:20002' });
  });

  it("when a key id comes with another account, then its names are that account's (never a cached name of another account)", () => {
    expect(names.ofKey({ accountId: 'acct_1', keyId: 'key_1' })).toMatchObject({ ban: 'rl:{acct_1}:key:key_1:ban', rejections: 'rl:{acct_1}:key:key_1:rejections' });
    expect(names.ofKey({ accountId: 'acct_9', keyId: 'key_1' })).toMatchObject({ ban: 'rl:{acct_9}:key:key_1:ban', rejections: 'rl:{acct_9}:key:key_1:rejections' });
  });

  it('when more accounts are named than the cache holds, then it starts again and every name is still right', () => {
    const many = new RedisKeyNames('rl');
    for (let i = 0; i <= 10_000; i++) many.ofAccount(`acct_${i}`, 1);
    expect(many.ofAccount('acct_0', 1).minute).toBe('rl:{acct_0}:minute');
    expect(many.ofAccount('acct_10000', 1).today).toBe('rl:{acct_10000}:day:1');
  });
});
