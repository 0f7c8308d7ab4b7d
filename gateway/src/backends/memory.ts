import { MemoryAccountStore } from '../accounts/memory-account-store';
import { MemoryAuditLog } from '../audit/audit-log';
import { PORTAL_AUDIT_ENTRIES_KEPT, SeparatedAuditLog } from '../audit/separated-audit-log';
import { MemoryCrossingMarks } from '../events/crossing-marks';
import { MemoryJobQueues } from '../jobs/memory-queues';
import { MemoryLimiter } from '../limits/memory-limiter';
import { AttemptLimits } from '../portal/attempt-limits';
import { MemoryPortalEmailStore } from '../portal/email-store';
import { MemoryPortalStore } from '../portal/memory-store';
import { LocalUsageBoard } from '../usage/usage-board';
import { MemoryWebhookStore } from '../webhooks/memory-webhook-store';
import type { StoreSettings, Stores } from './stores';

/** Every store in this process: the embedded default, nothing shared with another replica and nothing kept across a restart. */
export function openMemoryStores({ logger, ban, attemptPolicies }: StoreSettings): Stores {
  logger.warn('REDIS_URL is not set (nor REDIS_CLUSTER_NODES): accounts, keys and rate limits are kept in this process only; limits are per process and nothing survives a restart');
  const accounts = new MemoryAccountStore();
  const limiter = new MemoryLimiter(ban);
  const usage = new LocalUsageBoard();
  const portal = new MemoryPortalStore();
  const crossingMarks = new MemoryCrossingMarks();
  const jobs = new MemoryJobQueues();
  return {
    kind: 'in-process',
    accounts,
    limiter,
    usage,
    audit: new SeparatedAuditLog(new MemoryAuditLog(), new MemoryAuditLog(PORTAL_AUDIT_ENTRIES_KEPT)),
    portal,
    portalEmails: new MemoryPortalEmailStore(),
    attempts: new AttemptLimits({ policies: attemptPolicies }),
    crossingMarks,
    jobs,
    webhooks: new MemoryWebhookStore(),
    async close() {
      await Promise.all([usage.close(), jobs.close()]);
      await Promise.all([limiter.close(), accounts.close(), portal.close(), crossingMarks.close()]);
    },
  };
}
