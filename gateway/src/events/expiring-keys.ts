import type { AccountPosition } from '../accounts/types';
import type { AccountStore } from '../accounts/account-store';
import type { Claims } from './claims';
import type { EventBus } from './event-bus';
import { keyEvent } from './key-events';

const DAY_MS = 86_400_000;
/** `key.expiring` is sent this long before a key's `expiresAt`: 7 days, then 1 day. */
export const EXPIRY_NOTICES_MS = [7 * DAY_MS, DAY_MS] as const;
/** How often the sweep runs (on one replica: the others find the sweep claimed). */
export const EXPIRY_SWEEP_INTERVAL_MS = 10 * 60_000;
const ACCOUNTS_PER_PAGE = 100;

export interface ExpiringKeysOptions {
  store: Pick<AccountStore, 'listAccounts' | 'listKeys'>;
  claims: Claims;
  bus: Pick<EventBus, 'publish'>;
  intervalMs?: number;
  now?: () => number;
  onError?: (error: unknown) => void;
}

/**
 * `key.expiring`, 7 days and 1 day before a key's `expiresAt`: a periodic sweep of every account's
 * keys (nothing on the request path), run by one replica per interval, each notice claimed in the
 * store so it is sent once whatever the replicas. A key whose expiry is already within a day when
 * first seen gets the 1-day notice only. Keys rolled away (their expiry is the roll's grace period,
 * told by `key.rolled`) and revoked keys get none.
 */
export class ExpiringKeys {
  private readonly timer: NodeJS.Timeout;
  private readonly now: () => number;
  private running: Promise<void> | undefined;

  constructor(private readonly options: ExpiringKeysOptions) {
    this.now = options.now ?? Date.now;
    const interval = options.intervalMs ?? EXPIRY_SWEEP_INTERVAL_MS;
    this.timer = setInterval(() => void this.sweepOnce(interval), interval);
    this.timer.unref();
  }

  /** One sweep, unless another replica (or this one) swept within the interval. */
  async sweepOnce(intervalMs: number): Promise<void> {
    if (this.running) return;
    this.running = (async () => {
      try {
        if (await this.options.claims.claimOnce('expiry-sweep', Math.max(1, intervalMs - 1_000))) await this.sweep();
      } catch (error) {
        this.options.onError?.(error);
      } finally {
        this.running = undefined;
      }
    })();
    await this.running;
  }

  /** Every account, page by page; each key due a notice is told once. */
  async sweep(): Promise<void> {
    let after: AccountPosition | undefined;
    do {
      const page = await this.options.store.listAccounts({ limit: ACCOUNTS_PER_PAGE, ...(after ? { after } : {}) });
      for (const account of page.accounts) await this.sweepAccount(account.id);
      after = page.next ?? undefined;
    } while (after);
  }

  private async sweepAccount(accountId: string): Promise<void> {
    const now = this.now();
    for (const key of await this.options.store.listKeys(accountId)) {
      if (key.expiresAt === undefined || key.revokedAt !== null || key.replacedBy !== undefined) continue;
      const left = Date.parse(key.expiresAt) - now;
      if (left <= 0) continue;
      // The nearest notice due; the farther one is claimed with it, so it is never sent late.
      const due = EXPIRY_NOTICES_MS.filter((notice) => left <= notice);
      if (due.length === 0) continue;
      const claims = await Promise.all(due.map((notice) => this.options.claims.claimOnce(`expiring:${key.id}:${key.expiresAt}:${notice / DAY_MS}d`, left + DAY_MS)));
      if (claims[claims.length - 1]) this.options.bus.publish(keyEvent('key.expiring', key, now));
    }
  }

  close(): void {
    clearInterval(this.timer);
  }
}
