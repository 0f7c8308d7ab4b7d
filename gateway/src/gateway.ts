import type { Express } from 'express';
import type { Logger } from 'pino';
import { MemoryAccountStore } from './accounts/memory-account-store';
import { PrincipalResolver } from './accounts/principal-resolver';
import { RedisAccountStore } from './accounts/redis-account-store';
import type { AccountStore } from './accounts/types';
import { AccountService } from './admin/account-service';
import { createAdminApp } from './admin/app';
import { createApp } from './app';
import type { GatewayConfig } from './config';
import { createLimiter } from './limits';
import type { Limiter } from './limits/types';
import { createMetrics, type GatewayMetrics } from './metrics';
import { createPortal, type PortalTuning } from './portal';
import { connectRedis, createSubscriber, type Redis } from './redis';

export interface GatewayDeps {
  logger: Logger;
  /** Tests shorten the portal's sessions and limits, or cheapen its password hashes. */
  portalTuning?: PortalTuning;
}

export interface Gateway {
  /** The public port's app (`/v1`, `/docs`, health). */
  readonly publicApp: Express;
  /** The admin port's app (ops API, `/metrics`). */
  readonly adminApp: Express;
  readonly accounts: AccountService;
  readonly limiter: Limiter;
  readonly metrics: GatewayMetrics;
  /** 'Redis' or 'in-process store': where accounts, keys and counters live. */
  readonly storeKind: string;
  /** True once a stop has begun: readiness answers 503. */
  draining: boolean;
  /** Releases timers, caches and connections (after the servers have drained). */
  close(): Promise<void>;
}

/**
 * The gateway's composition root: the store (Redis when configured, in process otherwise),
 * limiter, key resolver, metrics, and the public and admin apps. `main.ts` puts the apps on
 * servers; the tests call this directly and drive the apps with supertest.
 */
export async function createGateway(config: GatewayConfig, { logger, portalTuning }: GatewayDeps): Promise<Gateway> {
  let redis: Redis | undefined;
  let store: AccountStore;
  if (config.redisUrl) {
    redis = await connectRedis(config.redisUrl);
    const redisStore = new RedisAccountStore({ redis, subscriber: createSubscriber(config.redisUrl) });
    await Promise.race([redisStore.whenSubscribed(), new Promise((resolve) => setTimeout(resolve, 2_000).unref())]);
    store = redisStore;
    if (redis.status !== 'ready') logger.warn({ redis: redactUrl(config.redisUrl) }, 'Redis is not reachable yet: limiting in-process until it is');
  } else {
    logger.warn('REDIS_URL is not set: accounts, keys and rate limits are kept in this process only; limits are per process and nothing survives a restart');
    store = new MemoryAccountStore();
  }

  const limiter = createLimiter({
    redis,
    logger,
    ban: { threshold: config.banThreshold, seconds: config.banSeconds },
  });
  const metrics = createMetrics({ isDegraded: () => limiter.degraded });
  const keys = new PrincipalResolver({ store, onQuotaChange: (accountId) => accountId && limiter.forgetAccount(accountId) });
  store.onChange((event) => {
    if (event.type === 'ban-lifted') limiter.liftBan(event.keyId).catch((err: unknown) => logger.warn({ err }, 'could not lift a ban locally'));
  });
  const accounts = new AccountService({ store, limiter });
  const portal = createPortal({ config, accounts, store, limiter, redis, tuning: portalTuning });

  const gateway: Gateway = {
    publicApp: createApp({
      config,
      logger,
      keys,
      limiter,
      metrics,
      portal: portal.router,
      lifecycle: {
        get draining() {
          return gateway.draining;
        },
      },
    }),
    adminApp: createAdminApp({
      service: accounts,
      adminToken: config.adminToken,
      logger,
      extraRoutes: (app, { requireAdmin }) => app.get('/metrics', requireAdmin, metrics.handler),
    }),
    accounts,
    limiter,
    metrics,
    storeKind: config.redisUrl ? 'Redis' : 'in-process store',
    draining: false,
    async close() {
      await Promise.all([limiter.close(), keys.close(), store.close(), portal.close()]);
      await redis?.quit().catch(() => redis?.disconnect());
    },
  };
  return gateway;
}

export function redactUrl(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//***@');
}
