import type { Logger } from 'pino';
import type { AccountStore } from '../accounts/account-store';
import type { AuditLog } from '../audit/audit-log';
import type { CrossingMarks } from '../events/crossing-marks';
import type { JobQueues } from '../jobs';
import type { BanPolicy, Limiter } from '../limits/types';
import type { AttemptLimits, AttemptPolicies } from '../portal/attempt-limits';
import type { PortalEmailStore } from '../portal/email-store';
import type { PortalStore } from '../portal/store';
import type { RedisTarget } from '../redis';
import type { UsageBoard } from '../usage/usage-board';
import type { WebhookStore } from '../webhooks/store';

/**
 * Where the gateway keeps its state, chosen once from the settings (`storeKindOf`):
 * in this process (the embedded default), a single Redis (`REDIS_URL`) or a Redis Cluster
 * (`REDIS_CLUSTER_NODES`). The value of the `store` label of `gateway_store_info`.
 */
export type StoreKind = 'in-process' | 'redis' | 'redis-cluster';

/** The kind of store a Redis target (`redisTargetOf(config)`) means; none: in process. */
export function storeKindOf(target: RedisTarget | undefined): StoreKind {
  if (!target) return 'in-process';
  return 'url' in target ? 'redis' : 'redis-cluster';
}

/** The store kinds as the start banner names them. */
export const STORE_KIND_NAMES: Readonly<Record<StoreKind, string>> = Object.freeze({
  'in-process': 'in-process store',
  redis: 'Redis',
  'redis-cluster': 'Redis Cluster',
});

/**
 * Every stateful part of the gateway that depends on the store kind, built together by one backend
 * (`memory.ts`, `redis.ts`) so that no other module chooses a store. A new store is a field here,
 * built in both backends, released in their `close` (see docs/architecture.md, "Where to add a store").
 */
export interface Stores {
  readonly kind: StoreKind;
  /** Accounts, keys, plans, the change feed and keys' last use. */
  readonly accounts: AccountStore;
  /** Rate-limit windows and bans (on Redis: with an in-process fallback per part of the store). */
  readonly limiter: Limiter;
  /** The ops usage board (top usage, refused keys). */
  readonly usage: UsageBoard;
  /** The audit trail, operators' and portal's entries apart. */
  readonly audit: AuditLog;
  /** The portal's sign-ins and sessions. */
  readonly portal: PortalStore;
  /** The portal's emailed links (as digests) and accounts' email profiles (verified, quota emails). */
  readonly portalEmails: PortalEmailStore;
  /** The portal's attempt limits (sign-ups, log-ins, requests per address). */
  readonly attempts: AttemptLimits;
  /** Which quota thresholds each account crossed today (one mark per account, threshold and UTC day). */
  readonly crossingMarks: CrossingMarks;
  /** Durable work off the request path: BullMQ on Redis, timers in process. */
  readonly jobs: JobQueues;
  /** Webhook endpoints, their recent deliveries, and once-only claims across replicas. */
  readonly webhooks: WebhookStore;
  /** Flushes what is buffered (usage board) and releases every part and connection. */
  close(): Promise<void>;
}

/** What every backend needs to build its parts: settings, not a store kind. */
export interface StoreSettings {
  logger: Logger;
  /** When a key is banned, and for how long. */
  ban: BanPolicy;
  /** How often buffered ops data (usage board, keys' last use) is written to a shared store. */
  flushIntervalMs: number;
  /** How long a request waits on Redis (`REDIS_TIMEOUT_MS`): the limiter's deadline; the connection's backstop follows it. */
  redisTimeoutMs: number;
  /** Tests shorten the portal's attempt limits; production uses ATTEMPT_POLICIES. */
  attemptPolicies?: Partial<AttemptPolicies>;
}
