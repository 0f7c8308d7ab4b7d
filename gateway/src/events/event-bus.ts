import { randomBytes } from 'node:crypto';
import type { DomainEvent } from './types';

export type EventListener = (event: DomainEvent) => void | Promise<void>;

/** A new event id: `evt_` and 16 random bytes in base64url. */
export function newEventId(): string {
  return `evt_${randomBytes(16).toString('base64url')}`;
}

/**
 * One per gateway process, built in the composition root. Publishing costs the publisher nothing:
 * it never awaits, never throws, and listeners run after the publisher's work (setImmediate), so a
 * slow or failing listener cannot delay or fail the request that caused the event. A listener's
 * failure goes to `onListenerError` (the log).
 */
export class EventBus {
  private readonly listeners = new Set<EventListener>();

  constructor(private readonly onListenerError: (error: unknown, event: DomainEvent) => void = () => undefined) {}

  publish(event: DomainEvent): void {
    if (this.listeners.size === 0) return;
    const listeners = [...this.listeners];
    setImmediate(() => {
      for (const listener of listeners) {
        try {
          Promise.resolve(listener(event)).catch((error: unknown) => this.onListenerError(error, event));
        } catch (error) {
          this.onListenerError(error, event);
        }
      }
    });
  }

  /** Adds a listener; the function returned removes it. */
  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
