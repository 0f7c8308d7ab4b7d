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
import { createMetrics, type GatewayMetrics } from './metrics';
import { createPortal, type PortalTuning } from './portal';
import { createPetsProxy } from './upstream/pets-proxy';
import { ReplicaSet } from './upstream/replicas';

export interface GatewayDeps {
  logger: Logger;
  /** The public port's access log (default: `logger`); main.ts gives it a buffered one. */
  accessLogger?: Logger;
  /** Tests shorten the portal's sessions and limits, or cheapen its password hashes. */
  portalTuning?: PortalTuning;
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
export async function createGateway(config: GatewayConfig, { logger, accessLogger = logger, portalTuning, scrapeMetrics, operatorMiddleware = [] }: GatewayDeps): Promise<Gateway> {
  const stores = await openStores({ ...config, attemptPolicies: portalTuning?.attempts }, logger);
  const { accounts: store, limiter, usage, audit, keyUse, jobs } = stores;
  const events = new EventBus((err, event) => logger.warn({ err, event: event.type }, 'an event listener failed'));
  const quotaCrossings = new QuotaCrossings({ marks: stores.crossingMarks, bus: events, onError: (err) => logger.debug({ err }, 'quota crossing not marked; retrying on the next request') });
  // A replica back from a back-off probes with one request, for as long as a request may wait.
  const replicas = new ReplicaSet(config.petsUrls, { probeMs: config.upstreamTimeoutMs });
  const keys = new PrincipalResolver({ store, onQuotaChange: (accountId) => accountId && limiter.forgetAccount(accountId) });
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
  const accounts = new AccountService({ store, limiter, environment: config.apiEnvironment, audit, keyActivity: keyUse, logger });
  const petsProxy = createPetsProxy({ replicas, timeoutMs: config.upstreamTimeoutMs, tryTimeoutMs: config.upstreamTryTimeoutMs, onAttempt: metrics.recordUpstreamAttempt });
  const portal = createPortal({ config, accounts, limiter, store: stores.portal, attempts: stores.attempts, tuning: portalTuning });

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
      bodyTimeoutMs: config.bodyTimeoutMs,
      extraRoutes: (app, { requireAdmin }) => app.get('/metrics', requireAdmin, metrics.handler),
    }),
    accounts,
    limiter,
    usage,
    keyUse,
    metrics,
    events,
    jobs,
    storeKind: stores.kind,
    draining: false,
    async close() {
      replicas.close();
      lookups.close();
      keys.close();
      await stores.close();
    },
  };
  return gateway;
}
