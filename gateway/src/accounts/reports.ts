import type { AuditLog, AuditPage, AuditQuery } from '../audit/audit-log';
import type { PlanName } from './types';
import type { AccountRecords } from './account-store';
import type { WindowName } from '../limits/types';
import type { UsageBoard } from '../usage/usage-board';

/** One line of the usage board as ops see it: the contract's `{accountId, plan, used, quota}`, and the name. */
export interface TopUsage {
  accountId: string;
  name: string;
  plan: PlanName;
  used: number;
  quota: number;
}

export interface RefusedKeyReport {
  keyId: string;
  accountId: string;
  name: string;
  plan: PlanName;
  /** Requests of this key refused today (UTC): rate limited or banned. */
  refused: number;
}

export interface ReportsOptions {
  store: Pick<AccountRecords, 'getAccount'>;
  board: UsageBoard;
  audit: AuditLog;
}

/**
 * The read-only ops reports: the usage board and the audit trail, with the accounts' names and
 * plans looked up as they are now (at most one store read per line shown).
 */
export class OpsReports {
  constructor(private readonly options: ReportsOptions) {}

  async topUsage(window: WindowName, limit: number): Promise<TopUsage[]> {
    const entries = await this.options.board.top(window, limit);
    const accounts = await Promise.all(entries.map((entry) => this.options.store.getAccount(entry.accountId)));
    return entries.flatMap((entry, i) => {
      const account = accounts[i];
      return account ? [{ accountId: entry.accountId, plan: account.plan, used: entry.used, quota: entry.quota, name: account.name }] : [];
    });
  }

  async refusedKeys(limit: number): Promise<RefusedKeyReport[]> {
    const keys = await this.options.board.refused(limit);
    const accounts = await Promise.all(keys.map((key) => this.options.store.getAccount(key.accountId)));
    return keys.flatMap((key, i) => {
      const account = accounts[i];
      return account ? [{ keyId: key.keyId, accountId: key.accountId, name: account.name, plan: account.plan, refused: key.refused }] : [];
    });
  }

  auditTrail(query: AuditQuery): Promise<AuditPage> {
    return this.options.audit.list(query);
  }
}
