import pino from 'pino';
import { openStores } from '../src/backends';
import { useRedis } from './support/redis';

/** The one place that builds the stores: the kind worked out from the settings, every part built by each backend. */
const redis = useRedis();
const logger = pino({ level: 'silent' });
const settings = { redisUrl: undefined, redisClusterNodes: undefined, banThreshold: null, banSeconds: 900, opsFlushIntervalMs: 1_000, redisTimeoutMs: 250 };
/** Every part openStores returns: a field added to Stores and not listed here fails the type check. */
const EVERY_PART = { accounts: true, limiter: true, usage: true, audit: true, portal: true, portalEmails: true, attempts: true, crossingMarks: true, jobs: true, webhooks: true, keyUse: true } satisfies Record<Exclude<keyof Awaited<ReturnType<typeof openStores>>, 'kind' | 'close'>, true>;
const PARTS = Object.keys(EVERY_PART) as Array<keyof typeof EVERY_PART>;

describe('openStores', () => {
  it('when no Redis is configured, then every part is in process', async () => {
    const stores = await openStores(settings, logger);
    try {
      expect(stores.kind).toBe('in-process');
      for (const part of PARTS) expect(stores[part]).toBeDefined();
      expect(stores.limiter).toMatchObject({ mode: 'in-process', degraded: false, unavailableParts: 0 });
    } finally {
      await stores.close();
    }
  });

  it('when REDIS_URL is set, then every part is on that Redis, and a write through one is read by another opened on it', async () => {
    const first = await openStores({ ...settings, redisUrl: redis.url }, logger);
    const second = await openStores({ ...settings, redisUrl: redis.url }, logger);
    try {
      expect(first.kind).toBe('redis');
      for (const part of PARTS) expect(first[part]).toBeDefined();
      expect(first.limiter).toMatchObject({ mode: 'redis', degraded: false, unavailableParts: 0 });
      await first.accounts.setPlan({ name: 'pro', perMinute: 7, perDay: 70 });
      expect(await second.accounts.getPlan('pro')).toEqual({ name: 'pro', perMinute: 7, perDay: 70 });
    } finally {
      await first.close();
      await second.close();
    }
  });
});
