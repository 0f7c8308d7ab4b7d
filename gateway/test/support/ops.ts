import { AccountService } from '../../src/accounts/account-service';
import { OpsReports } from '../../src/accounts/reports';
import { MemoryAccountStore } from '../../src/accounts/memory-account-store';
import type { AccountStore } from '../../src/accounts/account-store';
import { MemoryAuditLog, type AuditLog } from '../../src/audit/audit-log';
import { MemoryLimiter } from '../../src/limits/memory-limiter';
import type { BanPolicy } from '../../src/limits/types';
import { LocalUsageBoard, type UsageBoard } from '../../src/usage/usage-board';

/**
 * The ops use cases on the in-process store, limiter, audit log and usage board, wired as
 * `createGateway` wires them: what an admin app under test needs (`service` and `reports`).
 */
export function opsParts({ ban = { threshold: 2, seconds: 900 }, store = new MemoryAccountStore(), audit = new MemoryAuditLog(), board = new LocalUsageBoard() }: { ban?: BanPolicy; store?: AccountStore; audit?: AuditLog; board?: UsageBoard } = {}) {
  const limiter = new MemoryLimiter(ban);
  const service = new AccountService({ store, limiter, audit });
  const reports = new OpsReports({ store, board, audit });
  return { store, limiter, audit, board, service, reports };
}
