import type { Quotas } from '../accounts/types';
import type { KeySubject, LimitDecision, Limiter, WindowState } from './types';

export type LimitOutcome = LimitDecision['outcome'];
export type DecisionHook = (outcome: LimitOutcome, kind: 'key' | 'anonymous') => void;

/** Reports every decision to a metrics hook, so prom-client stays out of the limiter. */
export class ObservedLimiter implements Limiter {
  constructor(
    private readonly inner: Limiter,
    private readonly onDecision: DecisionHook,
  ) {}

  get mode(): string {
    return this.inner.mode;
  }

  get degraded(): boolean {
    return this.inner.degraded;
  }

  async consumeKey(subject: KeySubject, now?: number): Promise<LimitDecision> {
    const decision = await this.inner.consumeKey(subject, now);
    this.report(decision.outcome, 'key');
    return decision;
  }

  async consumeAnonymous(ip: string, perMinute: number, now?: number): Promise<LimitDecision> {
    const decision = await this.inner.consumeAnonymous(ip, perMinute, now);
    this.report(decision.outcome, 'anonymous');
    return decision;
  }

  usage(accountId: string, quotas: Quotas, now?: number): Promise<WindowState[]> {
    return this.inner.usage(accountId, quotas, now);
  }

  liftBan(keyId: string): Promise<void> {
    return this.inner.liftBan(keyId);
  }

  forgetAccount(accountId: string): void {
    this.inner.forgetAccount(accountId);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  private report(outcome: LimitOutcome, kind: 'key' | 'anonymous'): void {
    try {
      this.onDecision(outcome, kind);
    } catch {
      // A broken metrics hook must not fail the request it describes.
    }
  }
}
