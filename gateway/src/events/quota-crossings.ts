import type { KeySubject, LimitDecision, WindowState } from '../limits/types';
import type { CrossingMarks, QuotaThreshold } from './crossing-marks';
import { newEventId, type EventBus } from './event-bus';
import type { QuotaEvent } from './types';

export interface QuotaCrossingsOptions {
  marks: CrossingMarks;
  bus: EventBus;
  /** A mark the store could not make (the crossing is tried again on the account's next request). */
  onError?: (error: unknown) => void;
}

const EVENT_OF: Record<QuotaThreshold, QuotaEvent['type']> = { 80: 'quota.warning', 100: 'quota.exhausted' };

/** How long a mark outlives its day: a replica whose clock is a little behind still finds it. */
const MARK_SLACK_MS = 60 * 60 * 1000;

/**
 * Turns the limiter's decisions into `quota.warning` (80 % of the day quota) and `quota.exhausted`
 * (100 %) events, once per account, threshold and UTC day whatever the number of replicas.
 *
 * On the request path it costs one comparison per accepted request below 80 % (the decision
 * already carries the day window's numbers), and one set look-up above. Only a crossing this
 * process has not noted today does work, after the request's turn: the store's mark (SET NX on
 * Redis) decides which replica publishes.
 */
export class QuotaCrossings {
  /** Crossings this process has already handed to the store today: `account:threshold`. */
  private readonly noted = new Set<string>();
  private notedDay = 0;

  constructor(private readonly options: QuotaCrossingsOptions) {}

  observe(subject: KeySubject, decision: LimitDecision): void {
    if (decision.outcome !== 'allowed') return;
    const day = dayWindow(decision.windows);
    if (!day || day.limit <= 0) return;
    const used = day.limit - day.remaining;
    if (used * 5 < day.limit * 4) return;
    if (day.resetAtMs !== this.notedDay) {
      this.noted.clear();
      this.notedDay = day.resetAtMs;
    }
    this.cross(subject.accountId, 80, used, day);
    if (used >= day.limit) this.cross(subject.accountId, 100, used, day);
  }

  private cross(accountId: string, threshold: QuotaThreshold, used: number, day: WindowState): void {
    const note = `${accountId}:${threshold}`;
    if (this.noted.has(note)) return;
    this.noted.add(note);
    setImmediate(() => {
      const date = new Date(day.resetAtMs - 1).toISOString().slice(0, 10);
      this.options.marks.markOnce(accountId, threshold, date, day.resetAtMs + MARK_SLACK_MS).then(
        (first) => {
          if (first) this.options.bus.publish(quotaEvent(accountId, threshold, used, day));
        },
        (error: unknown) => {
          // Not marked: the account's next request tries again.
          if (this.notedDay === day.resetAtMs) this.noted.delete(note);
          this.options.onError?.(error);
        },
      );
    });
  }
}

function dayWindow(windows: readonly WindowState[]): WindowState | undefined {
  for (const window of windows) if (window.name === 'day') return window;
  return undefined;
}

function quotaEvent(accountId: string, threshold: QuotaThreshold, used: number, day: WindowState): QuotaEvent {
  return {
    id: newEventId(),
    type: EVENT_OF[threshold],
    at: Date.now(),
    accountId,
    data: { accountId, window: 'day', used, quota: day.limit, resetAt: new Date(day.resetAtMs).toISOString() },
  };
}
