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
  private hasBeenReady = false;
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
    if (subscriber.status === 'ready') this.hasBeenReady = true;
    subscriber.on('ready', () => this.onSubscriberReady());
    this.subscribed = subscriber.subscribe(channel).then(
      () => undefined,
      () => undefined, // closed before it connected; a later 'ready' subscribes again
    );
  }

  /** Resolves once the feed is live (or closed). */
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
  }

  private onSubscriberReady(): void {
    if (!this.hasBeenReady) {
      this.hasBeenReady = true;
      return;
    }
    // The subscription is ours to renew (ioredis's own is off: see `createSubscriber`). Once Redis
    // has answered it, no later message can be missed.
    this.subscriber.subscribe(this.channel).then(
      () => {
        if (!this.closed) this.listeners.emit({ type: 'reset' });
      },
      () => undefined, // disconnected again: the next 'ready' will try again
    );
  }
}
