import type { Router } from 'express';
import type { AccountService } from '../accounts/account-service';
import type { GatewayConfig } from '../config';
import type { Limiter } from '../limits/types';
import type { MailLinks } from '../mail/links';
import type { Mailer } from '../mail/mailer';
import { AccountEmails } from './account-emails';
import { loadPortalAssets } from './assets';
import { AttemptGate } from './attempt-gate';
import type { AttemptLimits, AttemptPolicies } from './attempt-limits';
import { EmailLinks, UnsubscribeSignatures, LINK_LIFETIMES_MS } from './email-links';
import type { EmailLinkPurpose, PortalEmailStore } from './email-store';
import { DeviceCookies } from './device-cookies';
import { PasswordHasher, type ScryptCost } from './passwords';
import { PortalService } from './portal-service';
import { createPortalRouter } from './routes';
import { Sessions, type SessionPolicy } from './sessions';
import type { LogInSlowdown } from './sign-in';
import type { PortalStore } from './store';
import type { WebhookService } from '../webhooks/webhook-service';

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
  config: Pick<GatewayConfig, 'portalSignup' | 'apiEnvironment' | 'publicBaseUrl' | 'anonIpv6PrefixLength' | 'internalJwtSecret' | 'bodyTimeoutMs' | 'smtpUrl'>;
  accounts: AccountService;
  /** For the usage history. */
  limiter: Pick<Limiter, 'history'>;
  /** Sign-ins and sessions (in process or in Redis: `backends/`). */
  store: PortalStore;
  /** Emailed links and email profiles (in process or in Redis: `backends/`). */
  emailStore: PortalEmailStore;
  attempts: AttemptLimits;
  mailer: Mailer;
  mailLinks: MailLinks;
  tuning?: PortalTuning;
  /** The webhook use cases, for the "Webhooks" pages. */
  webhooks?: WebhookService;
  /** Work done after a request was answered (a forgotten password's email) that failed. */
  onError?: (error: unknown, what: string) => void;
}

export interface Portal {
  /** Mounted at /portal on the public port. */
  readonly router: Router;
  readonly emails: AccountEmails;
  /** Signs the quota emails' one-click links that turn them off. */
  readonly unsubscribe: UnsubscribeSignatures;
}

/** The developer portal: its use cases and routes over its stores (chosen with every other store in `backends/`). */
export function createPortal({ config, accounts, limiter, store, emailStore, attempts, mailer, mailLinks, tuning = {}, webhooks, onError }: PortalDeps): Portal {
  const hasher = new PasswordHasher({ cost: tuning.passwordCost });
  const unsubscribe = new UnsubscribeSignatures(config.internalJwtSecret);
  const emails = new AccountEmails({
    accounts,
    store,
    emailStore,
    links: new EmailLinks(emailStore, tuning.linkLifetimesMs ?? LINK_LIFETIMES_MS),
    mailer,
    mailLinks,
    gate: new AttemptGate(attempts, config.anonIpv6PrefixLength),
    hasher,
    unsubscribe,
    verificationRequired: config.smtpUrl !== undefined,
    onError,
  });
  const service = new PortalService({
    accounts,
    limiter,
    store,
    sessions: new Sessions(store, tuning.sessions),
    hasher,
    attempts,
    emails,
    devices: new DeviceCookies(config.internalJwtSecret),
    signUp: config.portalSignup,
    ipv6PrefixLength: config.anonIpv6PrefixLength,
    slowdown: tuning.logInSlowdown,
  });
  const router = createPortalRouter({ service, assets: loadPortalAssets(), environment: config.apiEnvironment, publicBaseUrl: config.publicBaseUrl, bodyTimeoutMs: config.bodyTimeoutMs, webhooks });
  return { router, emails, unsubscribe };
}
