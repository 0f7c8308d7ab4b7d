import { LruMap } from './lru-map';
import type { Admission } from './principal-resolver';

export interface LookupGateOptions {
  /**
   * Look-ups of keys this replica has not verified that one client (an IPv4 address, an IPv6
   * network) may start at once, per minute (a token bucket of that size, refilled evenly). A key
   * that turns out valid gives its unit back, so valid keys never use it up.
   */
  perClientPerMinute: number;
  /** Look-ups per second this replica starts for clients past their own budget: a queue, first come first served. */
  queuedPerSecond: number;
  /** Look-ups that may wait in that queue at once (default: 10 s of it); past that a look-up is not admitted. */
  maxQueued?: number;
  /** Clients whose budget is remembered (least recently seen forgotten first: a forgotten client starts full again). */
  maxClients?: number;
  now?: () => number;
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

interface Bucket {
  tokens: number;
  updatedAt: number;
}

const WAITING_SECONDS = 10;

/**
 * Decides when the store may be asked about a key this replica does not know, so that a flood of
 * minted keys costs bounded store work and a valid key is never refused for it.
 *
 * Anyone can mint well-formed keys, and only the store can tell a valid one from a minted one. So
 * nothing is refused here: each client has a budget of immediate look-ups (refunded for keys that
 * turn out valid, so a NAT full of customers never spends it), and past that budget its look-ups
 * wait in one queue per replica, served at `queuedPerSecond` in arrival order. A flood from one
 * address therefore costs the store at most its budget plus the queue's rate, and a valid key
 * from that same address waits behind what is already queued (its client's own connections in
 * flight, not the flood's total), then works. Only a queue holding more than `maxQueued` look-ups
 * (10 s of work: thousands of concurrent connections) turns a look-up away.
 */
export class LookupGate {
  private readonly buckets: LruMap<string, Bucket>;
  private readonly queue: Array<() => void> = [];
  private queueTokens: number;
  private queueUpdatedAt: number;
  private timer: NodeJS.Timeout | undefined;
  private readonly counts = { immediate: 0, queued: 0, refused: 0 };
  private readonly perClientPerMinute: number;
  private readonly queuedPerSecond: number;
  private readonly maxQueued: number;
  private readonly now: () => number;

  constructor({ perClientPerMinute, queuedPerSecond, maxQueued, maxClients = 100_000, now = Date.now }: LookupGateOptions) {
    this.perClientPerMinute = perClientPerMinute;
    this.queuedPerSecond = queuedPerSecond;
    this.maxQueued = maxQueued ?? Math.max(1, Math.round(queuedPerSecond * WAITING_SECONDS));
    this.buckets = new LruMap(maxClients);
    this.now = now;
    this.queueTokens = queuedPerSecond;
    this.queueUpdatedAt = now();
  }

  get stats(): LookupGateStats {
    return { ...this.counts, waiting: this.queue.length };
  }

  /** The admission of one look-up for `client` (its anonymous-limit subject), for `PrincipalResolver.lookUp`. */
  admission(client: string): Admission {
    let fromBudget = false;
    return {
      admit: () => {
        if (this.take(client)) {
          fromBudget = true;
          this.counts.immediate++;
          return Promise.resolve(true);
        }
        return this.wait();
      },
      settle: (valid) => {
        if (valid && fromBudget) this.refund(client);
      },
    };
  }

  /** Stops the queue's timer and lets every waiting look-up go (at shutdown nothing should hang). */
  close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    for (const release of this.queue.splice(0)) release();
  }

  private take(client: string): boolean {
    const bucket = this.bucketOf(client);
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  }

  private refund(client: string): void {
    const bucket = this.bucketOf(client);
    bucket.tokens = Math.min(this.perClientPerMinute, bucket.tokens + 1);
  }

  private bucketOf(client: string): Bucket {
    const now = this.now();
    let bucket = this.buckets.get(client);
    if (!bucket) {
      bucket = { tokens: this.perClientPerMinute, updatedAt: now };
      this.buckets.set(client, bucket);
      return bucket;
    }
    bucket.tokens = Math.min(this.perClientPerMinute, bucket.tokens + ((now - bucket.updatedAt) * this.perClientPerMinute) / 60_000);
    bucket.updatedAt = now;
    return bucket;
  }

  private wait(): Promise<boolean> {
    this.refillQueue();
    if (this.queue.length === 0 && this.queueTokens >= 1) {
      this.queueTokens -= 1;
      this.counts.queued++;
      return Promise.resolve(true);
    }
    if (this.queue.length >= this.maxQueued) {
      this.counts.refused++;
      return Promise.resolve(false);
    }
    return new Promise((resolve) => {
      this.queue.push(() => {
        this.counts.queued++;
        resolve(true);
      });
      this.schedule();
    });
  }

  private refillQueue(): void {
    const now = this.now();
    this.queueTokens = Math.min(this.queuedPerSecond, this.queueTokens + ((now - this.queueUpdatedAt) * this.queuedPerSecond) / 1_000);
    this.queueUpdatedAt = now;
  }

  /** Releases what the queue's rate allows now, and sets a timer for the next one. */
  private drain = (): void => {
    this.timer = undefined;
    this.refillQueue();
    while (this.queue.length > 0 && this.queueTokens >= 1) {
      this.queueTokens -= 1;
      this.queue.shift()!();
    }
    this.schedule();
  };

  private schedule(): void {
    if (this.timer || this.queue.length === 0) return;
    const msUntilToken = Math.max(1, Math.ceil(((1 - this.queueTokens) * 1_000) / this.queuedPerSecond));
    this.timer = setTimeout(this.drain, msUntilToken);
    this.timer.unref();
  }
}
