import { MemoryLimiter } from '../limits/memory-limiter';
import type { KeySubject } from '../limits/types';
import { LocalUsageBoard, laterSnapshot, SAME_WINDOW_TOLERANCE_MS, UsageTally } from './usage-board';

const T0 = Date.UTC(2031, 2, 10, 12, 0, 0);
const subject = (accountId: string, perMinute: number, perDay: number, keyId = `${accountId}-key`): KeySubject => ({ accountId, keyId, quotas: { perMinute, perDay } });

/** Decisions from a real in-process limiter, observed as the rate-limit stage does. */
async function drive(board: LocalUsageBoard, limiter: MemoryLimiter, who: KeySubject, requests: number, at = T0) {
  for (let i = 0; i < requests; i++) board.observe(who, await limiter.consumeKey(who, at + i), at + i);
}

describe('laterSnapshot', () => {
  const window = (used: number, resetAtMs: number) => ({ used, quota: 10, resetAtMs });

  it('when two snapshots are of one window (ends within the tolerance), then the larger count wins whichever came last', () => {
    expect(laterSnapshot(window(5, T0), window(3, T0 + SAME_WINDOW_TOLERANCE_MS - 1))).toEqual(window(5, T0));
    expect(laterSnapshot(window(3, T0), window(5, T0 - 500))).toEqual(window(5, T0 - 500));
  });

  it('when a snapshot is of a later window, then it replaces the earlier one even with a smaller count', () => {
    expect(laterSnapshot(window(9, T0), window(1, T0 + 60_000))).toEqual(window(1, T0 + 60_000));
    expect(laterSnapshot(window(1, T0 + 60_000), window(9, T0))).toEqual(window(1, T0 + 60_000));
  });
});

describe('LocalUsageBoard', () => {
  it('when accounts use their quotas, then top lists the highest share first, with used and quota of the window', async () => {
    const limiter = new MemoryLimiter({ threshold: null, seconds: 60 });
    const board = new LocalUsageBoard();
    await drive(board, limiter, subject('small', 10, 1_000), 9);
    await drive(board, limiter, subject('big', 100, 1_000), 30);
    await drive(board, limiter, subject('idle', 10, 1_000), 1);
    expect(await board.top('minute', 10, T0 + 100)).toEqual([
      { accountId: 'small', used: 9, quota: 10 },
      { accountId: 'big', used: 30, quota: 100 },
      { accountId: 'idle', used: 1, quota: 10 },
    ]);
    expect(await board.top('day', 2, T0 + 100)).toEqual([
      { accountId: 'big', used: 30, quota: 1_000 },
      { accountId: 'small', used: 9, quota: 1_000 },
    ]);
  });

  it('when a window ends, then its account leaves that window\'s list but stays in the day\'s', async () => {
    const limiter = new MemoryLimiter({ threshold: null, seconds: 60 });
    const board = new LocalUsageBoard();
    await drive(board, limiter, subject('a', 10, 100), 3);
    expect(await board.top('minute', 10, T0 + 60_001)).toEqual([]);
    expect(await board.top('day', 10, T0 + 60_001)).toEqual([{ accountId: 'a', used: 3, quota: 100 }]);
    expect(await board.top('day', 10, Date.UTC(2031, 2, 11, 0, 0, 0))).toEqual([]);
  });

  it('when requests are refused or banned, then refused counts them per key for today, and accepted ones not at all', async () => {
    const limiter = new MemoryLimiter({ threshold: 3, seconds: 60 });
    const board = new LocalUsageBoard();
    await drive(board, limiter, subject('acme', 2, 100, 'noisy'), 7); // 2 accepted, 2 limited, then banned
    await drive(board, limiter, subject('acme', 2, 100, 'quiet'), 1);
    await drive(board, limiter, subject('calm', 10, 100, 'fine'), 5);
    expect(await board.refused(10, T0 + 100)).toEqual([
      { keyId: 'noisy', accountId: 'acme', refused: 5 },
      { keyId: 'quiet', accountId: 'acme', refused: 1 },
    ]);
    expect(await board.refused(10, Date.UTC(2031, 2, 11, 0, 0, 1))).toEqual([]);
    expect(await board.top('minute', 1, T0 + 100)).toEqual([{ accountId: 'acme', used: 2, quota: 2 }]);
  });
});

describe('UsageTally', () => {
  it('when it is full, then known entries still update and new ones wait', () => {
    const tally = new UsageTally(2);
    const windows = (used: number) => [
      { name: 'minute' as const, limit: 10, remaining: 10 - used, resetAtMs: T0 + 60_000, windowSeconds: 60 },
      { name: 'day' as const, limit: 100, remaining: 100 - used, resetAtMs: T0 + 3_600_000, windowSeconds: 86_400 },
    ];
    tally.observe({ accountId: 'a', keyId: 'k' }, { outcome: 'allowed', windows: windows(1) }, T0);
    tally.observe({ accountId: 'b', keyId: 'k2' }, { outcome: 'allowed', windows: windows(1) }, T0);
    tally.observe({ accountId: 'a', keyId: 'k' }, { outcome: 'allowed', windows: windows(2) }, T0);
    expect(tally.size).toBe(2);
    expect(tally.minute.get('a')?.used).toBe(2);
  });

  it('when a drained batch is restored, then it merges with what came meanwhile: later snapshots win, refusals add up', () => {
    const tally = new UsageTally(100);
    const refused = (used: number) => ({
      outcome: 'limited' as const,
      binding: 'minute' as const,
      retryAfterMs: 1,
      windows: [{ name: 'minute' as const, limit: 10, remaining: 10 - used, resetAtMs: T0 + 60_000, windowSeconds: 60 }],
    });
    tally.observe({ accountId: 'a', keyId: 'k' }, refused(10), T0);
    const drained = tally.drain();
    expect(tally.size).toBe(0);
    tally.observe({ accountId: 'a', keyId: 'k' }, refused(10), T0 + 1);
    tally.restore(drained);
    expect(tally.refusals.get('k')).toEqual({ accountId: 'a', count: 2, date: '2031-03-10' });
    expect(tally.minute.get('a')).toEqual({ used: 10, quota: 10, resetAtMs: T0 + 60_000 });
  });
});
