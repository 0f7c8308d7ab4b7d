import type { Router } from 'express';
import type { AccountService } from '../accounts/account-service';
import type { GatewayConfig } from '../config';
import type { Limiter } from '../limits/types';
import type { RedisClient } from '../redis';
import { loadPortalAssets } from './assets';
import { AttemptLimits, type AttemptPolicies } from './attempt-limits';
import { DeviceCookies } from './device-cookies';
import { MemoryPortalStore } from './memory-store';
import { PasswordHasher, type ScryptCost } from './passwords';
import { PortalService } from './portal-service';
import { DEFAULT_PORTAL_REDIS_PREFIX, RedisPortalStore, portalRedisKeys } from './redis-store';
import { createPortalRouter } from './routes';
import { Sessions, type SessionPolicy } from './sessions';
import type { LogInSlowdown } from './sign-in';
import type { PortalStore } from './store';

/** Numbers a test may shorten or cheapen; production uses the defaults written beside each. */
export interface PortalTuning {
  sessions?: SessionPolicy;
  attempts?: Partial<AttemptPolicies>;
  logInSlowdown?: LogInSlowdown;
  passwordCost?: ScryptCost;
}

export interface PortalDeps {
  config: Pick<GatewayConfig, 'portalSignup' | 'apiEnvironment' | 'publicBaseUrl' | 'anonIpv6PrefixLength' | 'internalJwtSecret'>;
  accounts: AccountService;
  /** For the usage history. */
  limiter: Pick<Limiter, 'history'>;
  /** The gateway's Redis command connection; absent: the portal keeps its state in process. */
  redis?: RedisClient;
  redisPrefix?: string;
  tuning?: PortalTuning;
}

export interface Portal {
  /** Mounted at /portal on the public port. */
  readonly router: Router;
  close(): Promise<void>;
}

/** The developer portal: its store (Redis or in process, like the account store), use cases and routes. */
export function createPortal({ config, accounts, limiter, redis, redisPrefix = DEFAULT_PORTAL_REDIS_PREFIX, tuning = {} }: PortalDeps): Portal {
  const portalStore: PortalStore = redis ? new RedisPortalStore(redis, redisPrefix) : new MemoryPortalStore();
  const redisKeys = portalRedisKeys(redisPrefix);
  const service = new PortalService({
    accounts,
    limiter,
    store: portalStore,
    sessions: new Sessions(portalStore, tuning.sessions),
    hasher: new PasswordHasher({ cost: tuning.passwordCost }),
    attempts: new AttemptLimits({ redis, keyPrefix: redisKeys.attempts, policies: tuning.attempts }),
    devices: new DeviceCookies(config.internalJwtSecret),
    signUp: config.portalSignup,
    ipv6PrefixLength: config.anonIpv6PrefixLength,
    slowdown: tuning.logInSlowdown,
  });
  const router = createPortalRouter({ service, assets: loadPortalAssets(), environment: config.apiEnvironment, publicBaseUrl: config.publicBaseUrl });
  return { router, close: () => portalStore.close() };
}
