import type { Express, RequestHandler } from 'express';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { LookupGate } from './accounts/lookup-gate';
import { PrincipalResolver } from './accounts/principal-resolver';
import { AccountService } from './accounts/account-service';
import { createAdminApp } from './admin/app';
import { OpsReports } from './accounts/reports';
import { TOKEN_FAILURE_POLICY, TokenFailures } from './admin/token-failures';
import type { KeyUseRecorder } from './usage/key-use';
import type { UsageBoard } from './usage/usage-board';
import { createApp } from './app';
import { openStores, type StoreKind } from './backends';
import type { GatewayConfig } from './config';
import type { Limiter } from './limits/types';
import { EventBus } from './events/event-bus';
import { QuotaCrossings } from './events/quota-crossings';
import type { JobQueues } from './jobs';
import { EmailVerification } from './accounts/email-verification';
import { AccountMail } from './mail/account-mail';
import { MailLinks } from './mail/links';
import { Mailer } from './mail/mailer';
import { logTransport, smtpTransport } from './mail/transport';
import { createMetrics, type GatewayMetrics } from './metrics';
import { createPortal, type PortalTuning } from './portal';
import { createPetsProxy } from './upstream/pets-proxy';
import { createWebhooks, type Webhooks } from './webhooks';
import { BanStarts } from './events/ban-starts';
import { ExpiringKeys } from './events/expiring-keys';
import { ReplicaSet } from './upstream/replicas';

export interface GatewayDeps {
  logger: Logger;
  /** The public port's access log (default: `logger`); main.ts gives it a buffered one. */
  accessLogger?: Logger;
  /** Tests shorten the portal's sessions and limits, or cheapen its password hashes. */
  portalTuning?: PortalTuning;
  /** Tests shorten the emails' retry schedule (default `MAIL_RETRY_DELAYS_MS`). */
  mailTuning?: { retryDelaysMs?: readonly number[] };
  /** What `/metrics` answers (default: this process's registry); a worker asks the primary for every worker's sum. */
  scrapeMetrics?: (registry: Registry) => Promise<string>;
  /** The operator's middleware (`GATEWAY_MIDDLEWARE`, loaded by `extensions/load-middleware.ts`), mounted in /v1 in this order. */
  operatorMiddleware?: readonly RequestHandler[];
}

export interface Gateway {
  /** The public port's request listener (`/v1`, `/docs`, `/portal`, health). */
  readonly publicApp: Express;
  /** The admin port's app (ops API, `/metrics`). */
  readonly adminApp: Express;
  readonly accounts: AccountService;
  readonly limiter: Limiter;
  /** The ops usage board (fed by the rate-limit stage). */
  readonly usage: UsageBoard;
  /** Keys' last use (fed by the rate-limit stage, flushed in the background). */
  readonly keyUse: KeyUseRecorder;
  readonly metrics: GatewayMetrics;
  /** What happened to accounts (quota crossings, key changes), for email and webhooks to hear. */
  readonly events: EventBus;
  /** Durable work off the request path (emails, webhook deliveries): BullMQ with Redis, in process without. */
  readonly jobs: JobQueues;
  /** Account endpoints that hear of events, and their deliveries. */
  readonly webhooks: Webhooks;
  /** Emails to an account's owner (`mail.toOwner(accountId, { subject, text })`), and the quota emails. */
  readonly mail: AccountMail;
  /** Where accounts, keys and counters live. */
  readonly storeKind: StoreKind;
  /** True once a stop has begun: readiness answers 503. */
  draining: boolean;
  /** Releases timers, caches and connections (after the servers have drained). */
  close(): Promise<void>;
}

/**
 * The gateway's composition root: the stores (`backends/`: Redis when configured, in process
 * otherwise), key resolver, metrics, and the public and admin apps. `main.ts` puts the apps on
 * servers; the tests call this directly and drive the apps with supertest.
 */
export async function createGateway(config: GatewayConfig, { logger, accessLogger = logger, portalTuning, mailTuning, scrapeMetrics, operatorMiddleware = [] }: GatewayDeps): Promise<Gateway> {
  const stores = await openStores({ ...config, attemptPolicies: portalTuning?.attempts }, logger);
  const { accounts: store, limiter, usage, audit, keyUse, jobs } = stores;
  const events = new EventBus((err, event) => logger.warn({ err, event: event.type }, 'an event listener failed'));
  const quotaCrossings = new QuotaCrossings({ marks: stores.crossingMarks, bus: events, onError: (err) => logger.debug({ err }, 'quota crossing not marked; retrying on the next request') });
  // A replica back from a back-off probes with one request, for as long as a request may wait.
  const replicas = new ReplicaSet(config.petsUrls, { probeMs: config.upstreamTimeoutMs });
  const keys = new PrincipalResolver({ store, lookupTimeoutMs: 2 * config.redisTimeoutMs, onQuotaChange: (accountId) => accountId && limiter.forgetAccount(accountId) });
  const lookups = new LookupGate({ perClientPerMinute: config.keyLookupsPerMinute, queuedPerSecond: config.keyLookupQueuePerSecond });
  const metrics = createMetrics({
    isDegraded: () => limiter.degraded,
    storeKind: stores.kind,
    unavailableParts: () => limiter.unavailableParts,
    replicas,
    keyCacheStats: () => keys.stats,
    keyLookupStats: () => lookups.stats,
    scrape: scrapeMetrics,
  });
  const accounts = new AccountService({ store, limiter, environment: config.apiEnvironment, audit, keyActivity: keyUse, logger, events });
  const petsProxy = createPetsProxy({ replicas, timeoutMs: config.upstreamTimeoutMs, tryTimeoutMs: config.upstreamTryTimeoutMs, onAttempt: metrics.recordUpstreamAttempt });
  const webhooks = createWebhooks({ config, store: stores.webhooks, jobs, events, audit, requireAccount: (id) => accounts.getAccount(id), logger, registry: metrics.registry, notifyOwner: (accountId, notice, jobId) => mail.toOwner(accountId, notice, jobId) });
  // Key events the limiter and the clock decide (the use cases publish the others), each once across replicas.
  const banStarts = new BanStarts({ claims: webhooks.claims, keyOf: (id) => store.getKey(id), bus: events, onError: (err) => logger.debug({ err }, 'ban start not announced; retrying on the next refusal') });
  const expiringKeys = new ExpiringKeys({ store, claims: webhooks.claims, bus: events, onError: (err) => logger.warn({ err }, 'key expiry sweep failed; retrying at the next') });
  const transport = config.smtpUrl ? smtpTransport(config.smtpUrl, config.mailFrom) : logTransport(logger, config.mailFrom);
  if (!config.smtpUrl && config.production) logger.warn('SMTP_URL is not set: emails (verification, password reset, quota warnings) are written to the log instead of being sent');
  const mailer = new Mailer({ jobs, transport, logger, retryDelaysMs: mailTuning?.retryDelaysMs });
  const mailLinks = new MailLinks(config.publicBaseUrl, config.port);
  const portal = createPortal({ config, accounts, limiter, store: stores.portal, emailStore: stores.portalEmails, attempts: stores.attempts, mailer, mailLinks, tuning: portalTuning, webhooks: webhooks.service, onError: (err, what) => logger.error({ err }, what) });
  const mail = new AccountMail({ mailer, accounts: store, profiles: stores.portalEmails, links: mailLinks, unsubscribe: portal.unsubscribe });
  mail.listen(events);

  const gateway: Gateway = {
    publicApp: createApp({
      config,
      logger,
      accessLogger,
      petsProxy,
      keys,
      lookups,
      limiter,
      metrics,
      portal: portal.router,
      operatorMiddleware,
      lifecycle: {
        get draining() {
          return gateway.draining;
        },
      },
      // Memory writes only: the ops views cost the request path no round trip.
      onKeyDecision: (subject, decision) => {
        const now = Date.now();
        keyUse.note(subject.keyId, now);
        usage.observe(subject, decision, now);
        quotaCrossings.observe(subject, decision);
        banStarts.observe(subject, decision);
      },
    }),
    adminApp: createAdminApp({
      service: accounts,
      reports: new OpsReports({ store, board: usage, audit }),
      adminTokens: config.adminTokens,
      adminHost: config.adminHost,
      allowedHosts: config.adminAllowedHosts,
      tokenFailures: new TokenFailures(TOKEN_FAILURE_POLICY, config.anonIpv6PrefixLength),
      logger,
      emailVerification: new EmailVerification({ accounts, profiles: stores.portalEmails, audit }),
      bodyTimeoutMs: config.bodyTimeoutMs,
      extraRoutes: (app, { requireAdmin }) => app.get('/metrics', requireAdmin, metrics.handler),
      webhooks: webhooks.service,
    }),
    accounts,
    limiter,
    usage,
    keyUse,
    metrics,
    events,
    jobs,
    webhooks,
    mail,
    storeKind: stores.kind,
    draining: false,
    async close() {
      replicas.close();
      webhooks.close();
      expiringKeys.close();
      lookups.close();
      keys.close();
      await stores.close();
      transport.close();
    },
  };
  return gateway;
}
