import type { Express, RequestHandler } from 'express';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { MemoryAccountStore } from './accounts/memory-account-store';
import { LookupGate } from './accounts/lookup-gate';
import { PrincipalResolver } from './accounts/principal-resolver';
import { RedisAccountStore } from './accounts/redis-account-store';
import type { AccountStore } from './accounts/types';
import { AccountService } from './accounts/account-service';
import { createAdminApp } from './admin/app';
import { OpsReports } from './accounts/reports';
import { TOKEN_FAILURE_POLICY, TokenFailures } from './admin/token-failures';
import { MemoryAuditLog, type AuditLog } from './audit/audit-log';
import { RedisAuditLog } from './audit/redis-audit-log';
import { PORTAL_AUDIT_ENTRIES_KEPT, SeparatedAuditLog } from './audit/separated-audit-log';
import { KeyUseRecorder } from './usage/key-use';
import { RedisUsageBoard } from './usage/redis-usage-board';
import { LocalUsageBoard, type UsageBoard } from './usage/usage-board';
import { createApp } from './app';
import { redisTargetOf, storeKindOf, type GatewayConfig } from './config';
import { createLimiter } from './limits';
import { FailoverLimiter } from './limits/failover-limiter';
import type { Limiter } from './limits/types';
import { MemoryCrossingMarks, RedisCrossingMarks, type CrossingMarks } from './events/crossing-marks';
import { EventBus } from './events/event-bus';
import { QuotaCrossings } from './events/quota-crossings';
import { createJobQueues, type JobQueues } from './jobs';
import { AccountMail } from './mail/account-mail';
import { MailLinks } from './mail/links';
import { Mailer } from './mail/mailer';
import { logTransport, smtpTransport } from './mail/transport';
import { createMetrics, type GatewayMetrics } from './metrics';
import { createPortal, type PortalTuning } from './portal';
import { connectTarget, createTargetSubscriber, describeTarget, type RedisClient } from './redis';
import { createPetsProxy } from './upstream/pets-proxy';
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
  /** Emails to an account's owner (`mail.toOwner(accountId, { subject, text })`), and the quota emails. */
  readonly mail: AccountMail;
  /** 'Redis', 'Redis Cluster' or 'in-process store': where accounts, keys and counters live. */
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
export async function createGateway(config: GatewayConfig, { logger, accessLogger = logger, portalTuning, mailTuning, scrapeMetrics, operatorMiddleware = [] }: GatewayDeps): Promise<Gateway> {
  const target = redisTargetOf(config);
  let redis: RedisClient | undefined;
  let store: AccountStore;
  // The ops read models live beside the store: in Redis under its keyspace, or in process.
  let usage: UsageBoard;
  let audit: AuditLog;
  let crossingMarks: CrossingMarks;
  if (target) {
    redis = await connectTarget(target);
    const redisStore = new RedisAccountStore({ redis, subscriber: createTargetSubscriber(target, redis) });
    await Promise.race([redisStore.whenSubscribed(), new Promise((resolve) => setTimeout(resolve, 2_000).unref())]);
    store = redisStore;
    if (redis.status !== 'ready') logger.warn({ redis: describeTarget(target) }, 'Redis is not reachable yet: limiting in-process until it is');
    const key = (name: string) => redisStore.key(name);
    usage = new RedisUsageBoard({ redis, key, flushIntervalMs: config.opsFlushIntervalMs, onFlushError: (err) => logger.debug({ err }, 'usage board not flushed; retrying') });
    // Operators' changes and the portal's in streams of their own: a portal account cannot flush the operators' trail.
    audit = new SeparatedAuditLog(new RedisAuditLog({ redis, key }), new RedisAuditLog({ redis, key, stream: 'audit:portal', maxEntries: PORTAL_AUDIT_ENTRIES_KEPT }));
    crossingMarks = new RedisCrossingMarks(redis, key);
  } else {
    logger.warn('REDIS_URL is not set (nor REDIS_CLUSTER_NODES): accounts, keys and rate limits are kept in this process only; limits are per process and nothing survives a restart');
    store = new MemoryAccountStore();
    usage = new LocalUsageBoard();
    audit = new SeparatedAuditLog(new MemoryAuditLog(), new MemoryAuditLog(PORTAL_AUDIT_ENTRIES_KEPT));
    crossingMarks = new MemoryCrossingMarks();
  }
  const events = new EventBus((err, event) => logger.warn({ err, event: event.type }, 'an event listener failed'));
  const jobs = createJobQueues(target, (err) => logger.debug({ err }, 'job queue: Redis call failed; retrying'));
  const quotaCrossings = new QuotaCrossings({ marks: crossingMarks, bus: events, onError: (err) => logger.debug({ err }, 'quota crossing not marked; retrying on the next request') });
  const keyUse = new KeyUseRecorder({ store, flushIntervalMs: config.opsFlushIntervalMs, onFlushError: (err) => logger.debug({ err }, 'key last-use times not flushed; retrying') });

  const limiter = createLimiter({
    redis,
    logger,
    ban: { threshold: config.banThreshold, seconds: config.banSeconds },
  });
  // A replica back from a back-off probes with one request, for as long as a request may wait.
  const replicas = new ReplicaSet(config.petsUrls, { probeMs: config.upstreamTimeoutMs });
  const keys = new PrincipalResolver({ store, onQuotaChange: (accountId) => accountId && limiter.forgetAccount(accountId) });
  const lookups = new LookupGate({ perClientPerMinute: config.keyLookupsPerMinute, queuedPerSecond: config.keyLookupQueuePerSecond });
  const metrics = createMetrics({
    isDegraded: () => limiter.degraded,
    storeKind: target ? ('url' in target ? 'redis' : 'redis-cluster') : 'in-process',
    unavailableParts: () => (limiter instanceof FailoverLimiter ? limiter.unavailableParts : 0),
    replicas,
    keyCacheStats: () => keys.stats,
    keyLookupStats: () => lookups.stats,
    scrape: scrapeMetrics,
  });
  store.onChange((event) => {
    if (event.type === 'ban-lifted') limiter.liftBan({ accountId: event.accountId, keyId: event.keyId }).catch((err: unknown) => logger.warn({ err }, 'could not lift a ban locally'));
  });
  const accounts = new AccountService({ store, limiter, environment: config.apiEnvironment, audit, keyActivity: keyUse, logger });
  const petsProxy = createPetsProxy({ replicas, timeoutMs: config.upstreamTimeoutMs, tryTimeoutMs: config.upstreamTryTimeoutMs, onAttempt: metrics.recordUpstreamAttempt });
  const transport = config.smtpUrl ? smtpTransport(config.smtpUrl, config.mailFrom) : logTransport(logger, config.mailFrom);
  if (!config.smtpUrl && config.production) logger.warn('SMTP_URL is not set: emails (verification, password reset, quota warnings) are written to the log instead of being sent');
  const mailer = new Mailer({ jobs, transport, logger, retryDelaysMs: mailTuning?.retryDelaysMs });
  const mailLinks = new MailLinks(config.publicBaseUrl, config.port);
  const portal = createPortal({ config, accounts, limiter, redis, tuning: portalTuning, mailer, mailLinks });
  const mail = new AccountMail({ mailer, accounts: store, profiles: portal.emailStore, links: mailLinks, unsubscribe: portal.unsubscribe });
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
      extraRoutes: (app, { requireAdmin }) => app.get('/metrics', requireAdmin, metrics.handler),
    }),
    accounts,
    limiter,
    usage,
    keyUse,
    metrics,
    events,
    jobs,
    mail,
    storeKind: storeKindOf(config),
    draining: false,
    async close() {
      replicas.close();
      // The last flushes first, while the store's connection is still open.
      await Promise.all([usage.close(), keyUse.close(), jobs.close()]);
      transport.close();
      lookups.close();
      await Promise.all([limiter.close(), keys.close(), store.close(), portal.close()]);
      await redis?.quit().catch(() => redis?.disconnect());
    },
  };
  return gateway;
}
