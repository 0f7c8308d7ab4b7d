import { EventBus, newEventId } from './event-bus';
import type { DomainEvent } from './types';

const event = (): DomainEvent => ({ id: newEventId(), type: 'key.revoked', at: 1, accountId: 'acct_1', data: { accountId: 'acct_1', keyId: 'key_1', name: null, access: 'read-write', expiresAt: null } });

describe('EventBus', () => {
  it('when an event is published, then listeners hear it after the publisher returns, each once', async () => {
    const bus = new EventBus();
    const heard: string[] = [];
    bus.subscribe((e) => void heard.push(`a:${e.id}`));
    bus.subscribe((e) => void heard.push(`b:${e.id}`));
    const published = event();
    bus.publish(published);
    expect(heard).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(heard).toEqual([`a:${published.id}`, `b:${published.id}`]);
  });

  it('when a listener throws or rejects, then the publisher is not failed, the others still hear it and the error is reported', async () => {
    const errors: unknown[] = [];
    const bus = new EventBus((error) => errors.push(error));
    let heard = 0;
    bus.subscribe(() => {
      throw new Error('sync');
    });
    bus.subscribe(() => Promise.reject(new Error('async')));
    bus.subscribe(() => void (heard += 1));
    expect(() => bus.publish(event())).not.toThrow();
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(heard).toBe(1);
    expect(errors.map((e) => (e as Error).message).sort()).toEqual(['async', 'sync']);
  });

  it('when a listener unsubscribes, then it hears nothing more', async () => {
    const bus = new EventBus();
    let heard = 0;
    const unsubscribe = bus.subscribe(() => void (heard += 1));
    unsubscribe();
    bus.publish(event());
    await new Promise((resolve) => setImmediate(resolve));
    expect(heard).toBe(0);
  });

  it('event ids are unique and start with evt_', () => {
    const ids = new Set(Array.from({ length: 1000 }, newEventId));
    expect(ids.size).toBe(1000);
    for (const id of ids) expect(id).toMatch(/^evt_[A-Za-z0-9_-]{22}$/);
  });
});
