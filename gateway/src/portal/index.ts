import type { Router } from 'express';
import type { AccountService } from '../accounts/account-service';
import type { GatewayConfig } from '../config';
import type { Limiter } from '../limits/types';
import { loadPortalAssets } from './assets';
import type { AttemptLimits, AttemptPolicies } from './attempt-limits';
import { DeviceCookies } from './device-cookies';
import { PasswordHasher, type ScryptCost } from './passwords';
import { PortalService } from './portal-service';
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
  config: Pick<GatewayConfig, 'portalSignup' | 'apiEnvironment' | 'publicBaseUrl' | 'anonIpv6PrefixLength' | 'internalJwtSecret' | 'bodyTimeoutMs'>;
  accounts: AccountService;
  /** For the usage history. */
  limiter: Pick<Limiter, 'history'>;
  /** Sign-ins and sessions (in process or in Redis: `backends/`). */
  store: PortalStore;
  attempts: AttemptLimits;
  tuning?: PortalTuning;
}

export interface Portal {
  /** Mounted at /portal on the public port. */
  readonly router: Router;
}

/** The developer portal: its use cases and routes over its stores (chosen with every other store in `backends/`). */
export function createPortal({ config, accounts, limiter, store, attempts, tuning = {} }: PortalDeps): Portal {
  const service = new PortalService({
    accounts,
    limiter,
    store,
    sessions: new Sessions(store, tuning.sessions),
    hasher: new PasswordHasher({ cost: tuning.passwordCost }),
    attempts,
    devices: new DeviceCookies(config.internalJwtSecret),
    signUp: config.portalSignup,
    ipv6PrefixLength: config.anonIpv6PrefixLength,
    slowdown: tuning.logInSlowdown,
  });
  const router = createPortalRouter({ service, assets: loadPortalAssets(), environment: config.apiEnvironment, publicBaseUrl: config.publicBaseUrl, bodyTimeoutMs: config.bodyTimeoutMs });
  return { router };
}
