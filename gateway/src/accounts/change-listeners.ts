import type { ChangeEvent } from './types';

/**
 * The listeners of one store's change feed, for both stores (in-process and Redis): each hears
 * every event as its own copy, and one that throws neither turns a completed write into an error
 * nor keeps the others from hearing it.
 */
export class ChangeListeners {
  private readonly listeners = new Set<(event: ChangeEvent) => void>();

  /** Returns the unsubscribe function. Subscribing the same function twice gives two independent subscriptions. */
  add(listener: (event: ChangeEvent) => void): () => void {
    const wrapped = (event: ChangeEvent) => listener(event);
    this.listeners.add(wrapped);
    return () => {
      this.listeners.delete(wrapped);
    };
  }

  emit(event: ChangeEvent): void {
    for (const listener of [...this.listeners]) {
      try {
        listener({ ...event });
      } catch {
        // A failing listener must not starve the others.
      }
    }
  }

  clear(): void {
    this.listeners.clear();
  }
}
