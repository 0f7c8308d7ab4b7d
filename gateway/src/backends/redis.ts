import { RedisAccountStore } from '../accounts/redis-account-store';
import { RedisAuditLog } from '../audit/redis-audit-log';
import { PORTAL_AUDIT_ENTRIES_KEPT, SeparatedAuditLog } from '../audit/separated-audit-log';
import { RedisCrossingMarks } from '../events/crossing-marks';
import { BullJobQueues } from '../jobs/bullmq-queues';
import { createLimiter } from '../limits';
import { AttemptLimits } from '../portal/attempt-limits';
import { RedisPortalEmailStore } from '../portal/redis-email-store';
import { DEFAULT_PORTAL_REDIS_PREFIX, RedisPortalStore } from '../portal/redis-store';
import { commandTimeoutFor, connectTarget, createTargetSubscriber, describeTarget, endConnection, type RedisTarget } from '../redis';
import { RedisUsageBoard } from '../usage/redis-usage-board';
import { RedisWebhookStore } from '../webhooks/redis-webhook-store';
import { storeKindOf, type StoreSettings, type Stores } from './stores';

/** How long start-up waits for the change feed before serving anyway (it resubscribes by itself). */
const SUBSCRIBE_WAIT_MS = 2_000;

/**
 * Every store on one Redis or Redis Cluster, shared by all gateway replicas, over one command
 * connection (and the account store's subscriber for the change feed). The gateway starts even if
 * Redis is not reachable yet: the limiter counts in process until it is, the other stores answer
 * 503 store_unavailable.
 */
export async function openRedisStores(target: RedisTarget, { logger, ban, flushIntervalMs, redisTimeoutMs, attemptPolicies }: StoreSettings): Promise<Stores> {
  const redis = await connectTarget(target, undefined, commandTimeoutFor(redisTimeoutMs));
  const accounts = new RedisAccountStore({ redis, subscriber: createTargetSubscriber(target, redis), deadlineMs: 2 * redisTimeoutMs });
  await Promise.race([accounts.whenSubscribed(), new Promise((resolve) => setTimeout(resolve, SUBSCRIBE_WAIT_MS).unref())]);
  if (redis.status !== 'ready') logger.warn({ redis: describeTarget(target) }, 'Redis is not reachable yet: limiting in-process until it is');
  // The ops read models live under the account store's keyspace.
  const key = (name: string) => accounts.key(name);
  const usage = new RedisUsageBoard({ redis, key, flushIntervalMs, onFlushError: (err) => logger.debug({ err }, 'usage board not flushed; retrying') });
  const limiter = createLimiter({ redis, logger, ban, commandTimeoutMs: redisTimeoutMs });
  const portal = new RedisPortalStore(redis);
  const crossingMarks = new RedisCrossingMarks(redis, key);
  // BullMQ keeps connections of its own (a worker blocks on one), opened from the same target.
  const jobs = new BullJobQueues(target, (err) => logger.debug({ err }, 'job queue: Redis call failed; retrying'));
  return {
    kind: storeKindOf(target),
    accounts,
    limiter,
    usage,
    // Operators' changes and the portal's in streams of their own: a portal account cannot flush the operators' trail.
    audit: new SeparatedAuditLog(new RedisAuditLog({ redis, key }), new RedisAuditLog({ redis, key, stream: 'audit:portal', maxEntries: PORTAL_AUDIT_ENTRIES_KEPT })),
    portal,
    portalEmails: new RedisPortalEmailStore(redis, DEFAULT_PORTAL_REDIS_PREFIX),
    attempts: new AttemptLimits({ redis, policies: attemptPolicies }),
    crossingMarks,
    jobs,
    // Each endpoint under a hash tag of its own; an account's list beside the account.
    webhooks: new RedisWebhookStore(redis),
    async close() {
      // The last flush first, while the connection is still open.
      await Promise.all([usage.close(), jobs.close()]);
      await Promise.all([limiter.close(), accounts.close(), portal.close(), crossingMarks.close()]);
      await endConnection(redis);
    },
  };
}
