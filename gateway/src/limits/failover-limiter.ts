import type { Logger } from 'pino';
import type { DailyCount, DecisionNowOrLater, KeyRef, KeySubject, LimitDecision, Limiter, Quotas, WindowState } from './types';
import type { MemoryLimiter } from './memory-limiter';
import type { StorePart } from './store-parts';

/** Where the primary keeps what a call touches. */
export interface PrimaryParts {
  ofAccount(accountId: string): StorePart;
  ofAnonymous(ip: string): StorePart;
  /** The primary's `mode` while `unavailable` parts are answered in-process. */
  degradedMode(unavailable: number): string;
}

export interface FailoverOptions {
  primary: Limiter;
  /** Answers for the parts of the store that are down, with the quotas each call carries. */
  fallback: MemoryLimiter;
  parts: PrimaryParts;
  logger: Logger;
  probeIntervalMs?: number;
  onModeChange?: (degraded: boolean) => void;
}

/**
 * Redis while it works, the in-process limiter while it does not, decided per part of the store:
 * on a single Redis the part is the server, on a cluster it is a master, so a dead master sends only
 * its own accounts in-process while every other account stays exact on Redis. The failure policy
 * is neither "open" (an outage would lift every limit) nor "closed" (it would turn into a 429
 * storm): limits keep applying, per replica. While a part is down, no request touches it; a
 * background probe per failed part finds out when it is back, and its accounts return to Redis.
 */
export class FailoverLimiter implements Limiter {
  /** Parts known to be down, with the probe that tells when each is back. */
  private readonly down = new Map<string, StorePart>();
  private readonly probing = new Set<string>();
  private probeTimer: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly probeIntervalMs: number;

  constructor(private readonly options: FailoverOptions) {
    this.probeIntervalMs = options.probeIntervalMs ?? 500;
  }

  get mode(): string {
    return this.down.size > 0 ? this.options.parts.degradedMode(this.down.size) : this.options.primary.mode;
  }

  get degraded(): boolean {
    return this.down.size > 0;
  }

  /** How many parts of the store are answered in-process now (0 when all is well). */
  get unavailableParts(): number {
    return this.down.size;
  }

  /** A decision either limiter knows at once is passed on as it is: only a promise can fail over. */
  consumeKey(subject: KeySubject, now?: number): DecisionNowOrLater {
    const part = this.options.parts.ofAccount(subject.accountId);
    if (this.down.has(part.id)) return this.options.fallback.consumeKey(subject, now);
    const decision = this.options.primary.consumeKey(subject, now);
    if (!(decision instanceof Promise)) return decision;
    return decision.catch((err: unknown) => {
      this.markDown(part, err);
      return this.options.fallback.consumeKey(subject, now);
    });
  }

  consumeAnonymous(ip: string, perMinute: number, now?: number): Promise<LimitDecision> {
    return this.either(this.options.parts.ofAnonymous(ip), (limiter) => limiter.consumeAnonymous(ip, perMinute, now));
  }

  usage(accountId: string, quotas: Quotas, now?: number): Promise<WindowState[]> {
    return this.either(this.options.parts.ofAccount(accountId), (limiter) => limiter.usage(accountId, quotas, now));
  }

  history(accountId: string, days: number, now?: number): Promise<DailyCount[]> {
    return this.either(this.options.parts.ofAccount(accountId), (limiter) => limiter.history(accountId, days, now));
  }

  /** Lifted in both stores; a Redis failure is reported, since the ban would otherwise come back with Redis. */
  async liftBan(key: KeyRef): Promise<void> {
    await this.options.fallback.liftBan(key);
    await this.options.primary.liftBan(key);
  }

  bannedUntil(key: KeyRef, now?: number): Promise<number | null> {
    return this.either(this.options.parts.ofAccount(key.accountId), (limiter) => limiter.bannedUntil(key, now));
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

  private either<T>(part: StorePart, use: (limiter: Limiter) => Promise<T>): Promise<T> {
    if (this.down.has(part.id)) return use(this.options.fallback);
    // No async frame of its own: this runs on every accepted request.
    return use(this.options.primary).catch((err: unknown) => {
      this.markDown(part, err);
      return use(this.options.fallback);
    });
  }

  private markDown(part: StorePart, err: unknown): void {
    if (this.down.has(part.id)) return;
    const wasDegraded = this.degraded;
    this.down.set(part.id, part);
    this.options.logger.warn(
      { err, part: part.id },
      part.id === 'redis'
        ? 'rate limiter: Redis unavailable, limiting in-process (per replica) until it returns'
        : `rate limiter: Redis unavailable for the accounts on ${part.id}, limiting them in-process (per replica) until it returns`,
    );
    if (!wasDegraded) this.notify(true);
    if (this.closed || this.probeTimer) return;
    this.probeTimer = setInterval(() => this.probeAll(), this.probeIntervalMs);
    this.probeTimer.unref();
  }

  private probeAll(): void {
    for (const part of this.down.values()) void this.probeOnce(part);
  }

  private async probeOnce(part: StorePart): Promise<void> {
    if (this.probing.has(part.id)) return;
    this.probing.add(part.id);
    try {
      await part.probe();
    } catch {
      return;
    } finally {
      this.probing.delete(part.id);
    }
    this.markUp(part);
  }

  private markUp(part: StorePart): void {
    if (this.closed || this.down.get(part.id) !== part) return;
    this.down.delete(part.id);
    this.options.logger.info({ part: part.id }, part.id === 'redis' ? 'rate limiter: Redis is back, limiting through Redis again' : `rate limiter: Redis is back for the accounts on ${part.id}`);
    if (this.down.size > 0) return;
    this.stopProbe();
    // Counts made during the outage were never in Redis; keeping them would only skew the next outage.
    this.options.fallback.reset();
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
