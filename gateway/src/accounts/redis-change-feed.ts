import type { FeedSubscriber } from '../redis';
import { ChangeListeners } from './change-listeners';
import { parseChangeEvent } from './redis-account-codec';
import type { ChangeEvent } from './types';

/**
 * The Redis account store's change feed as this replica hears it: the messages of one channel on a
 * dedicated subscriber connection, handed to the listeners. When the connection comes back after a
 * disconnection, messages may have been lost in between, so listeners get `{type: 'reset'}` once
 * the subscription is active again.
 */
export class RedisChangeFeed {
  private readonly listeners = new ChangeListeners();
  private readonly subscribed: Promise<void>;
  private markSubscribed!: () => void;
  /** The subscriber's 'ready' for its current connection has come (or had come before the feed): a later one is a reconnection. */
  private seenReady = false;
  /**
   * The feed's first SUBSCRIBE failed: its connection ended before Redis answered (a cluster node
   * that timed out; the subscriber moves on to the next). The subscription that later takes is
   * then the first, and it comes after the gateway may have stopped waiting for it and served.
   */
  private firstAttemptFailed = false;
  private closed = false;

  constructor(
    private readonly subscriber: FeedSubscriber,
    readonly channel: string,
  ) {
    subscriber.on('message', (from: string, message: string) => {
      if (from !== channel) return;
      const event = parseChangeEvent(message);
      if (event) this.listeners.emit(event);
    });
    this.subscribed = new Promise((resolve) => {
      this.markSubscribed = resolve;
    });
    if (subscriber.status === 'ready') this.seenReady = true;
    subscriber.on('ready', () => this.onSubscriberReady());
    subscriber.subscribe(channel).then(
      () => this.markSubscribed(),
      () => {
        // Closed, or the connection ended before it was ready; the next 'ready' subscribes again.
        this.firstAttemptFailed = true;
      },
    );
  }

  /** Resolves once Redis has answered the feed's subscription (or the feed is closed). */
  whenSubscribed(): Promise<void> {
    return this.subscribed;
  }

  onChange(listener: (event: ChangeEvent) => void): () => void {
    return this.listeners.add(listener);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.listeners.clear();
    this.subscriber.disconnect();
    this.markSubscribed();
  }

  private onSubscriberReady(): void {
    if (!this.seenReady) {
      this.seenReady = true;
      // The first connection: the constructor's SUBSCRIBE, queued until now, covers it.
      if (!this.firstAttemptFailed) return;
    }
    // The subscription is ours to renew (ioredis's own is off: see `createSubscriber`). Once Redis
    // has answered it, no later message can be missed; what was published before may have been,
    // and so may everything since the gateway stopped waiting for a first subscription that failed.
    this.subscriber.subscribe(this.channel).then(
      () => {
        if (this.closed) return;
        this.markSubscribed();
        this.listeners.emit({ type: 'reset' });
      },
      () => undefined, // disconnected again: the next 'ready' will try again
    );
  }
}
