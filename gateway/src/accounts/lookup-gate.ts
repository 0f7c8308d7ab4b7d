import { RateLimiterMemory, RateLimiterQueue, RateLimiterRes } from 'rate-limiter-flexible';
import type { Admission } from './principal-resolver';

export interface LookupGateOptions {
  /**
   * Look-ups of keys this replica has not verified that one client (an IPv4 address, an IPv6
   * network) may start at once, per minute. A key that turns out valid gives its unit back, so
   * valid keys never use it up.
   */
  perClientPerMinute: number;
  /** Look-ups per second this replica starts for clients past their own budget: a queue, first come first served. */
  queuedPerSecond: number;
  /** Look-ups that may wait in that queue at once (default: 10 s of it); past that a look-up is not admitted. */
  maxQueued?: number;
}

export interface LookupGateStats {
  /** Look-ups started at once, within their client's budget. */
  immediate: number;
  /** Look-ups that waited their turn in the queue. */
  queued: number;
  /** Look-ups not admitted because the queue was full. */
  refused: number;
  /** Look-ups waiting now. */
  waiting: number;
}

const WAITING_SECONDS = 10;
/** The queue's one key: a single line for the whole replica. */
const QUEUE = 'look-ups';

/**
 * Decides when the store may be asked about a key this replica does not know, so that a flood of
 * minted keys costs bounded store work and a valid key is never refused for it.
 *
 * Anyone can mint well-formed keys, and only the store can tell a valid one from a minted one. So
 * nothing is refused here: each client has a budget of immediate look-ups a minute (refunded for
 * keys that turn out valid, so a NAT full of customers never spends it), and past that budget its
 * look-ups wait in one queue per replica, served at `queuedPerSecond` in arrival order. A flood
 * from one address therefore costs the store at most its budget plus the queue's rate, and a valid
 * key from that same address waits behind what is already queued (its client's own connections in
 * flight, not the flood's total), then works. Only a queue holding more than `maxQueued` look-ups
 * (10 s of work: thousands of concurrent connections) turns a look-up away.
 *
 * On rate-limiter-flexible, as the portal's attempt limits are: the budgets are a `RateLimiterMemory`
 * (a minute's window per client, its entries expiring with it), the queue a `RateLimiterQueue` over
 * another (a second's window).
 */
export class LookupGate {
  private readonly budgets: RateLimiterMemory;
  private readonly queue: RateLimiterQueue;
  private readonly counts = { immediate: 0, queued: 0, refused: 0 };
  /** The look-ups waiting in the queue, each released once: by its turn, or by `close`. */
  private readonly waiting = new Set<(admitted: boolean) => void>();
  private closed = false;

  constructor({ perClientPerMinute, queuedPerSecond, maxQueued }: LookupGateOptions) {
    this.budgets = new RateLimiterMemory({ points: perClientPerMinute, duration: 60 });
    const rate = new RateLimiterMemory({ points: queuedPerSecond, duration: 1 });
    // Once closed, every turn comes at once: nothing left in the queue holds a shutdown.
    const turns = Object.assign(Object.create(rate) as RateLimiterMemory, {
      consume: (key: string, points?: number) => (this.closed ? Promise.resolve(new RateLimiterRes()) : rate.consume(key, points)),
    });
    this.queue = new RateLimiterQueue(turns, { maxQueueSize: maxQueued ?? Math.max(1, Math.round(queuedPerSecond * WAITING_SECONDS)) });
  }

  get stats(): LookupGateStats {
    return { ...this.counts, waiting: this.waiting.size };
  }

  /** The admission of one look-up for `client` (its anonymous-limit subject), for `PrincipalResolver.lookUp`. */
  admission(client: string): Admission {
    let fromBudget = false;
    return {
      admit: async () => {
        if (await this.fromBudget(client)) {
          fromBudget = true;
          this.counts.immediate++;
          return true;
        }
        return this.wait();
      },
      settle: (valid) => {
        if (valid && fromBudget) void this.budgets.reward(client, 1);
      },
    };
  }

  /** Lets every waiting look-up go (at shutdown nothing should hang). */
  close(): void {
    this.closed = true;
    for (const release of [...this.waiting]) release(true);
  }

  private async fromBudget(client: string): Promise<boolean> {
    try {
      await this.budgets.consume(client);
      return true;
    } catch (rejection) {
      if (rejection instanceof Error) throw rejection;
      return false;
    }
  }

  private wait(): Promise<boolean> {
    return new Promise((resolve) => {
      const release = (admitted: boolean) => {
        if (!this.waiting.delete(release)) return;
        if (admitted) this.counts.queued++;
        else this.counts.refused++;
        resolve(admitted);
      };
      this.waiting.add(release);
      this.queue.removeTokens(1, QUEUE).then(
        () => release(true),
        // The queue is full (`maxQueued` waiting): not admitted.
        () => release(false),
      );
    });
  }
}
