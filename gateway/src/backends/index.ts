import type { Logger } from 'pino';
import { redisTargetOf, type GatewayConfig } from '../config';
import { KeyUseRecorder } from '../usage/key-use';
import { openMemoryStores } from './memory';
import { openRedisStores } from './redis';
import type { StoreSettings, Stores } from './stores';

export { STORE_KIND_NAMES, storeKindOf, type StoreKind, type Stores } from './stores';

/** The stores and what runs over them whatever the kind: keys' last use, buffered in this process and flushed to the account store. */
export interface GatewayStores extends Stores {
  readonly keyUse: KeyUseRecorder;
}

export type GatewayStoreSettings = Pick<GatewayConfig, 'redisUrl' | 'redisClusterNodes' | 'banThreshold' | 'banSeconds' | 'opsFlushIntervalMs' | 'redisTimeoutMs'> & Pick<StoreSettings, 'attemptPolicies'>;

/**
 * Every stateful part of the gateway from the configured kind, chosen here and nowhere else: Redis
 * or Redis Cluster when configured (`REDIS_URL`, `REDIS_CLUSTER_NODES`), in process otherwise.
 */
export async function openStores(config: GatewayStoreSettings, logger: Logger): Promise<GatewayStores> {
  const settings: StoreSettings = {
    logger,
    ban: { threshold: config.banThreshold, seconds: config.banSeconds },
    flushIntervalMs: config.opsFlushIntervalMs,
    redisTimeoutMs: config.redisTimeoutMs,
    attemptPolicies: config.attemptPolicies,
  };
  const target = redisTargetOf(config);
  const stores = target ? await openRedisStores(target, settings) : openMemoryStores(settings);
  const keyUse = new KeyUseRecorder({ store: stores.accounts, flushIntervalMs: config.opsFlushIntervalMs, onFlushError: (err) => logger.debug({ err }, 'key last-use times not flushed; retrying') });
  // An operator lifted a ban on some replica: this replica's limiter lets go of the ban it cached.
  stores.accounts.onChange((event) => {
    if (event.type === 'ban-lifted') stores.limiter.liftBan({ accountId: event.accountId, keyId: event.keyId }).catch((err: unknown) => logger.warn({ err }, 'could not lift a ban locally'));
  });
  return {
    ...stores,
    keyUse,
    async close() {
      // The last flush of keys' last use first, while the account store is still open.
      await keyUse.close();
      await stores.close();
    },
  };
}
