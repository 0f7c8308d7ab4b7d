import type { KeySubject, LimitDecision } from '../limits/types';
import { MemoryCrossingMarks, type CrossingMarks } from './crossing-marks';
import { EventBus } from './event-bus';
import { QuotaCrossings } from './quota-crossings';
import type { DomainEvent } from './types';

/** The end of today (UTC): a fixed date would pass, and a mark that expires before it is made is no mark. */
const DAY_END = (() => {
  const now = new Date();
  return Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
})();
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const subject = (accountId = 'acct_1'): KeySubject => ({ accountId, keyId: 'key_1', quotas: { perMinute: 1000, perDay: 10 } });
const decision = (used: number, limit = 10, resetAtMs = DAY_END, outcome: 'allowed' | 'limited' = 'allowed'): LimitDecision => {
  const windows = [
    { name: 'minute' as const, limit: 1000, remaining: 1000 - used, resetAtMs: DAY_END - 1000, windowSeconds: 60 },
    { name: 'day' as const, limit, remaining: Math.max(0, limit - used), resetAtMs, windowSeconds: 86_400 },
  ];
  return outcome === 'allowed' ? { outcome, windows } : { outcome, windows, binding: 'day', retryAfterMs: 1 };
};

/** Waits until the bus has had time to run the marks and listeners (they are all in-memory here). */
const settle = async () => {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
};

function setUp(marks: CrossingMarks = new MemoryCrossingMarks()) {
  const bus = new EventBus();
  const events: DomainEvent[] = [];
  bus.subscribe((event) => void events.push(event));
  return { crossings: new QuotaCrossings({ marks, bus }), events };
}

describe('QuotaCrossings', () => {
  it('when an account goes from 0 to its quota, then one warning at 80 % and one exhausted at 100 %, with the day numbers', async () => {
    const { crossings, events } = setUp();
    for (let used = 1; used <= 10; used++) crossings.observe(subject(), decision(used));
    crossings.observe(subject(), decision(10, 10, DAY_END, 'limited'));
    await settle();
    expect(events.map((e) => [e.type, e.data])).toEqual([
      ['quota.warning', { accountId: 'acct_1', window: 'day', used: 8, quota: 10, resetAt: new Date(DAY_END).toISOString() }],
      ['quota.exhausted', { accountId: 'acct_1', window: 'day', used: 10, quota: 10, resetAt: new Date(DAY_END).toISOString() }],
    ]);
    expect(events.every((e) => e.accountId === 'acct_1' && e.id.startsWith('evt_'))).toBe(true);
  });

  it('when two detectors (two replicas) share the marks, then each threshold is published once', async () => {
    const marks = new MemoryCrossingMarks();
    const a = setUp(marks);
    const b = setUp(marks);
    for (let used = 7; used <= 10; used++) {
      a.crossings.observe(subject(), decision(used));
      b.crossings.observe(subject(), decision(used));
    }
    await settle();
    expect([...a.events, ...b.events].map((e) => e.type).sort()).toEqual(['quota.exhausted', 'quota.warning']);
  });

  it('when a new UTC day begins, then the thresholds are told again; another account is told on its own', async () => {
    const { crossings, events } = setUp();
    crossings.observe(subject(), decision(8));
    crossings.observe(subject('acct_2'), decision(9));
    crossings.observe(subject(), decision(9, 10, DAY_END + 86_400_000));
    await settle();
    expect(events.map((e) => `${e.accountId} ${e.type} ${(e.data as { resetAt: string }).resetAt.slice(0, 10)}`)).toEqual([
      `acct_1 quota.warning ${dayOf(DAY_END)}`,
      `acct_2 quota.warning ${dayOf(DAY_END)}`,
      `acct_1 quota.warning ${dayOf(DAY_END + 86_400_000)}`,
    ]);
  });

  it('when a quota of one is used in one request, then both thresholds are told; a refused decision or no day quota tells nothing', async () => {
    const { crossings, events } = setUp();
    crossings.observe(subject(), decision(1, 1));
    crossings.observe(subject('acct_2'), decision(10, 10, DAY_END, 'limited'));
    crossings.observe(subject('acct_3'), decision(0, 0));
    await settle();
    expect(events.map((e) => `${e.accountId} ${e.type}`)).toEqual(['acct_1 quota.warning', 'acct_1 quota.exhausted']);
  });

  it('when the store cannot mark a crossing, then nothing is published and the next request tries again', async () => {
    let failing = true;
    const memory = new MemoryCrossingMarks();
    const errors: unknown[] = [];
    const marks: CrossingMarks = { markOnce: (...args) => (failing ? Promise.reject(new Error('down')) : memory.markOnce(...args)), close: () => memory.close() };
    const bus = new EventBus();
    const events: DomainEvent[] = [];
    bus.subscribe((event) => void events.push(event));
    const crossings = new QuotaCrossings({ marks, bus, onError: (error) => errors.push(error) });
    crossings.observe(subject(), decision(8));
    await settle();
    expect(events).toEqual([]);
    expect(errors).toHaveLength(1);
    failing = false;
    crossings.observe(subject(), decision(9));
    await settle();
    expect(events.map((e) => e.type)).toEqual(['quota.warning']);
  });
});
