import { laterSnapshot, SAME_WINDOW_TOLERANCE_MS, UsageTally } from './usage-board';

const T0 = Date.UTC(2031, 2, 10, 12, 0, 0);

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
