import type { Logger } from 'pino';
import type { DailyCount, KeyRef, KeySubject, LimitDecision, Limiter, Quotas, WindowState } from './types';
import type { MemoryLimiter } from './memory-limiter';

const DEGRADED_MODE = 'in-process (redis unavailable)';

export interface FailoverOptions {
  primary: Limiter;
  /** Answers while the primary is down, with the quotas each call carries. */
  fallback: MemoryLimiter;
  /** Resolves when the primary's store answers again (and answers in time); rejects otherwise. */
  probe: () => Promise<unknown>;
  logger: Logger;
  probeIntervalMs?: number;
  onModeChange?: (degraded: boolean) => void;
}

/**
 * Redis while it works, the in-process limiter while it does not. The failure policy is neither
 * "open" (a Redis outage would lift every limit) nor "closed" (it would turn into a 429 storm):
 * limits keep applying, per replica. While down, no request touches Redis at all; a background
 * probe finds out when it is back.
 */
export class FailoverLimiter implements Limiter {
  private down = false;
  private probeTimer: NodeJS.Timeout | undefined;
  private probing = false;
  private closed = false;
  private readonly probeIntervalMs: number;

  constructor(private readonly options: FailoverOptions) {
    this.probeIntervalMs = options.probeIntervalMs ?? 500;
  }

  get mode(): string {
    return this.down ? DEGRADED_MODE : this.options.primary.mode;
  }

  get degraded(): boolean {
    return this.down;
  }

  consumeKey(subject: KeySubject, now?: number): Promise<LimitDecision> {
    return this.either((limiter) => limiter.consumeKey(subject, now));
  }

  consumeAnonymous(ip: string, perMinute: number, now?: number): Promise<LimitDecision> {
    return this.either((limiter) => limiter.consumeAnonymous(ip, perMinute, now));
  }

  usage(accountId: string, quotas: Quotas, now?: number): Promise<WindowState[]> {
    return this.either((limiter) => limiter.usage(accountId, quotas, now));
  }

  history(accountId: string, days: number, now?: number): Promise<DailyCount[]> {
    return this.either((limiter) => limiter.history(accountId, days, now));
  }

  /** Lifted in both stores; a Redis failure is reported, since the ban would otherwise come back with Redis. */
  async liftBan(keyId: string): Promise<void> {
    await this.options.fallback.liftBan(keyId);
    await this.options.primary.liftBan(keyId);
  }

  bannedUntil(key: KeyRef, now?: number): Promise<number | null> {
    return this.either((limiter) => limiter.bannedUntil(key, now));
  }

  forgetAccount(accountId: string): void {
    this.options.primary.forgetAccount(accountId);
    this.options.fallback.forgetAccount(accountId);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.stopProbe();
    await this.options.primary.close();
    await this.options.fallback.close();
  }

  private async either<T>(use: (limiter: Limiter) => Promise<T>): Promise<T> {
    if (!this.down) {
      try {
        return await use(this.options.primary);
      } catch (err) {
        this.markDown(err);
      }
    }
    return use(this.options.fallback);
  }

  private markDown(err: unknown): void {
    if (this.down) return;
    this.down = true;
    this.options.logger.warn({ err }, 'rate limiter: Redis unavailable, limiting in-process (per replica) until it returns');
    this.notify(true);
    if (this.closed) return;
    this.probeTimer = setInterval(() => void this.probeOnce(), this.probeIntervalMs);
    this.probeTimer.unref();
  }

  private async probeOnce(): Promise<void> {
    if (this.probing || !this.down) return;
    this.probing = true;
    try {
      await this.options.probe();
    } catch {
      return;
    } finally {
      this.probing = false;
    }
    this.markUp();
  }

  private markUp(): void {
    if (!this.down || this.closed) return;
    this.stopProbe();
    this.down = false;
    // Counts made during the outage were never in Redis; keeping them would only skew the next outage.
    this.options.fallback.reset();
    this.options.logger.info('rate limiter: Redis is back, limiting through Redis again');
    this.notify(false);
  }

  private notify(degraded: boolean): void {
    try {
      this.options.onModeChange?.(degraded);
    } catch (err) {
      // A broken metrics hook must not turn a fallback into a failed request.
      this.options.logger.error({ err }, 'rate limiter: onModeChange hook failed');
    }
  }

  private stopProbe(): void {
    if (this.probeTimer) clearInterval(this.probeTimer);
    this.probeTimer = undefined;
  }
}
