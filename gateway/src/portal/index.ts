import type { Router } from 'express';
import type { AccountService } from '../accounts/account-service';
import type { GatewayConfig } from '../config';
import type { Limiter } from '../limits/types';
import type { MailLinks } from '../mail/links';
import type { Mailer } from '../mail/mailer';
import type { RedisClient } from '../redis';
import { AccountEmails } from './account-emails';
import { EmailLinks, UnsubscribeSignatures, LINK_LIFETIMES_MS } from './email-links';
import { MemoryPortalEmailStore, type EmailLinkPurpose, type PortalEmailStore } from './email-store';
import { RedisPortalEmailStore } from './redis-email-store';
import { loadPortalAssets } from './assets';
import { AttemptGate } from './attempt-gate';
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
  /** How long emailed links work (default: `LINK_LIFETIMES_MS`). */
  linkLifetimesMs?: Record<EmailLinkPurpose, number>;
}

export interface PortalDeps {
  config: Pick<GatewayConfig, 'portalSignup' | 'apiEnvironment' | 'publicBaseUrl' | 'anonIpv6PrefixLength' | 'internalJwtSecret' | 'smtpUrl'>;
  mailer: Mailer;
  mailLinks: MailLinks;
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
  /** Where the accounts' email profiles are (the quota emails read the owner's switch there). */
  readonly emailStore: PortalEmailStore;
  readonly emails: AccountEmails;
  /** Signs the quota emails' one-click links that turn them off. */
  readonly unsubscribe: UnsubscribeSignatures;
  close(): Promise<void>;
}

/** The developer portal: its store (Redis or in process, like the account store), use cases and routes. */
export function createPortal({ config, accounts, limiter, redis, redisPrefix = DEFAULT_PORTAL_REDIS_PREFIX, tuning = {}, mailer, mailLinks }: PortalDeps): Portal {
  const portalStore: PortalStore = redis ? new RedisPortalStore(redis, redisPrefix) : new MemoryPortalStore();
  const emailStore: PortalEmailStore = redis ? new RedisPortalEmailStore(redis, redisPrefix) : new MemoryPortalEmailStore();
  const redisKeys = portalRedisKeys(redisPrefix);
  const attempts = new AttemptLimits({ redis, keyPrefix: redisKeys.attempts, policies: tuning.attempts });
  const hasher = new PasswordHasher({ cost: tuning.passwordCost });
  const unsubscribe = new UnsubscribeSignatures(config.internalJwtSecret);
  const emails = new AccountEmails({
    accounts,
    store: portalStore,
    emailStore,
    links: new EmailLinks(emailStore, tuning.linkLifetimesMs ?? LINK_LIFETIMES_MS),
    mailer,
    mailLinks,
    gate: new AttemptGate(attempts, config.anonIpv6PrefixLength),
    hasher,
    unsubscribe,
    verificationRequired: config.smtpUrl !== undefined,
  });
  const service = new PortalService({
    accounts,
    limiter,
    store: portalStore,
    sessions: new Sessions(portalStore, tuning.sessions),
    hasher,
    attempts,
    emails,
    devices: new DeviceCookies(config.internalJwtSecret),
    signUp: config.portalSignup,
    ipv6PrefixLength: config.anonIpv6PrefixLength,
    slowdown: tuning.logInSlowdown,
  });
  const router = createPortalRouter({ service, assets: loadPortalAssets(), environment: config.apiEnvironment, publicBaseUrl: config.publicBaseUrl });
  return { router, emailStore, emails, unsubscribe, close: () => Promise.all([portalStore.close(), emailStore.close()]).then(() => undefined) };
}
