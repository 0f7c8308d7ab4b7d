import { AttemptLimits } from '../src/portal/attempt-limits';
import { portalRedisKeys } from '../src/portal/redis-store';
import { useRedis } from './support/redis';

/** The portal's attempt limits shared through Redis (the rules on every backing: attempt-limits.contract.ts); here, what sharing adds. */
const redis = useRedis();
const keyPrefix = (kind: string) => portalRedisKeys('shared:').attempts(kind);
const policies = { logInFailuresPerEmailAndAddress: { points: 3, durationSeconds: 60 } };

describe('AttemptLimits on Redis specifics', () => {
  it('when two replicas share Redis, then they share the count, under the portal prefix; with Redis gone they still limit', async () => {
    const [one, two] = [await redis.connection(2_000), await redis.connection(2_000)];
    const a = new AttemptLimits({ redis: one, keyPrefix, policies });
    const b = new AttemptLimits({ redis: two, keyPrefix, policies });
    expect(await a.take('logInFailuresPerEmailAndAddress', 'ann@example.com')).toBeNull();
    expect(await b.take('logInFailuresPerEmailAndAddress', 'ann@example.com')).toBeNull();
    expect(await a.take('logInFailuresPerEmailAndAddress', 'ann@example.com')).toBeNull();
    expect(await b.take('logInFailuresPerEmailAndAddress', 'ann@example.com')).not.toBeNull();
    expect(await one.keys('*')).toEqual(['shared:portal:attempts:logInFailuresPerEmailAndAddress:ann@example.com']);

    await redis.server.stop();
    for (let i = 0; i < 3; i += 1) expect(await a.take('logInFailuresPerEmailAndAddress', 'bob@example.com')).toBeNull();
    expect(await a.take('logInFailuresPerEmailAndAddress', 'bob@example.com')).not.toBeNull();
  });
});
