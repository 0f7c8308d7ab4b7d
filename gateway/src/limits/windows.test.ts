import { banThreshold, bindingWindow, nextUtcMidnightMs, refusingWindow, utcDate, utcDay } from './windows';
import type { WindowState } from './types';

const w = (name: 'minute' | 'day', remaining: number, resetAtMs: number): WindowState => ({ name, limit: 10, remaining, resetAtMs, windowSeconds: name === 'minute' ? 60 : 86_400 });

describe('windows', () => {
  it('when it is one millisecond before midnight UTC, then the day window resets one millisecond later', () => {
    const justBefore = Date.UTC(2031, 5, 30, 23, 59, 59, 999);
    expect(nextUtcMidnightMs(justBefore)).toBe(Date.UTC(2031, 6, 1));
    expect(utcDay(justBefore + 1)).toBe(utcDay(justBefore) + 1);
  });

  it('when the day turns over (and back, for a past day), then its date is that of the day asked, not of the one asked before', () => {
    const day = utcDay(Date.UTC(2031, 11, 31, 12));
    expect([utcDate(day), utcDate(day), utcDate(day + 1), utcDate(day - 365), utcDate(day)]).toEqual(['2031-12-31', '2031-12-31', '2032-01-01', '2030-12-31', '2031-12-31']);
  });

  it('when it is exactly midnight UTC, then a new day has started', () => {
    const midnight = Date.UTC(2031, 0, 1);
    expect(nextUtcMidnightMs(midnight)).toBe(midnight + 86_400_000);
  });

  it('when the ban threshold is null, then it is the per-minute quota; when it is below 1, then nobody is banned', () => {
    expect(banThreshold({ threshold: null, seconds: 900 }, { perMinute: 60, perDay: 1000 })).toBe(60);
    expect(banThreshold({ threshold: 5, seconds: 900 }, { perMinute: 60, perDay: 1000 })).toBe(5);
    expect(banThreshold({ threshold: null, seconds: 900 }, { perMinute: 0, perDay: 1000 })).toBe(0);
  });

  it('when both windows are full, then the refusing one is the one that frees later', () => {
    expect(refusingWindow([w('minute', 0, 1_000), w('day', 0, 5_000)])?.name).toBe('day');
    expect(refusingWindow([w('minute', 0, 1_000), w('day', 3, 5_000)])?.name).toBe('minute');
    expect(refusingWindow([w('minute', 1, 1_000), w('day', 3, 5_000)])).toBeUndefined();
  });

  it('when windows tie on remaining, then the binding one is the one that resets later', () => {
    expect(bindingWindow([w('minute', 2, 1_000), w('day', 2, 5_000)])?.name).toBe('day');
    expect(bindingWindow([w('minute', 1, 1_000), w('day', 2, 5_000)])?.name).toBe('minute');
  });
});
