import type { ApiKeyRecord } from '../accounts/types';
import type { KeySubject, LimitDecision } from '../limits/types';
import type { Claims } from './claims';
import type { EventBus } from './event-bus';
import { keyEvent } from './key-events';

export interface BanStartsOptions {
  claims: Claims;
  /** The key's record, for the event's name, access and expiry (read off the request path). */
  keyOf(keyId: string): Promise<ApiKeyRecord | null>;
  bus: Pick<EventBus, 'publish'>;
  onError?: (error: unknown) => void;
  now?: () => number;
}

/** Keys whose ban this process has noted, at most (the oldest forgotten first: a repeat is still deduplicated by the claim). */
const NOTED_KEPT = 10_000;

/**
 * Turns the limiter's decisions into `key.banned` when a key's temporary ban begins: once per ban,
 * whatever the number of replicas (a claim named after the key, held for the ban's length). On the
 * request path it costs one comparison per decision (`outcome === 'banned'`), and a map look-up per
 * refused request of a banned key; the claim and the event happen after the request's turn.
 */
export class BanStarts {
  /** keyId → the end of the ban this process has already handled. */
  private readonly noted = new Map<string, number>();
  private readonly now: () => number;

  constructor(private readonly options: BanStartsOptions) {
    this.now = options.now ?? Date.now;
  }

  observe(subject: KeySubject, decision: LimitDecision): void {
    if (decision.outcome !== 'banned') return;
    const until = this.noted.get(subject.keyId);
    const now = this.now();
    if (until !== undefined && until > now) return;
    this.noted.delete(subject.keyId);
    this.noted.set(subject.keyId, decision.bannedUntilMs);
    if (this.noted.size > NOTED_KEPT) this.noted.delete(this.noted.keys().next().value!);
    setImmediate(() => void this.announce(subject.keyId, decision.bannedUntilMs - now, now));
  }

  private async announce(keyId: string, banMs: number, at: number): Promise<void> {
    try {
      if (!(await this.options.claims.claimOnce(`ban:${keyId}`, Math.max(1, banMs)))) return;
      const key = await this.options.keyOf(keyId);
      if (key) this.options.bus.publish(keyEvent('key.banned', key, at));
    } catch (error) {
      this.noted.delete(keyId);
      this.options.onError?.(error);
    }
  }
}
