import fc from 'fast-check';
import { rateLimitHeaders } from './headers';
import type { LimitDecision, WindowState } from './types';

const NOW = Date.UTC(2030, 0, 15, 12, 0, 0, 250);
const minute = (remaining: number, resetInMs = 42_000, limit = 60): WindowState => ({ name: 'minute', limit, remaining, resetAtMs: NOW + resetInMs, windowSeconds: 60 });
const day = (remaining: number, resetInMs = 43_200_000, limit = 1000): WindowState => ({ name: 'day', limit, remaining, resetAtMs: NOW + resetInMs, windowSeconds: 86_400 });

describe('rateLimitHeaders', () => {
  it('when a request is allowed, then the headers describe the window with the fewest requests remaining', () => {
    const headers = rateLimitHeaders({ outcome: 'allowed', windows: [minute(59), day(10)] }, NOW);
    expect(headers).toEqual({
      'X-RateLimit-Limit': '1000',
      'X-RateLimit-Remaining': '10',
      'X-RateLimit-Reset': String(Math.ceil((NOW + 43_200_000) / 1000)),
      'RateLimit-Policy': '"minute";q=60;w=60, "day";q=1000;w=86400',
      RateLimit: '"day";r=10;t=43200',
    });
  });

  it('when responses of accounts with different quotas and of anonymous callers interleave, then each gets its own RateLimit-Policy (built once per quota pair)', () => {
    const policy = (windows: WindowState[]) => rateLimitHeaders({ outcome: 'allowed', windows }, NOW)['RateLimit-Policy'];
    for (let i = 0; i < 2; i++) {
      expect(policy([minute(5, 1000, 60), day(5, 1000, 1000)])).toBe('"minute";q=60;w=60, "day";q=1000;w=86400');
      expect(policy([minute(5, 1000, 60), day(5, 1000, 2000)])).toBe('"minute";q=60;w=60, "day";q=2000;w=86400');
      expect(policy([minute(5, 1000, 120), day(5, 1000, 1000)])).toBe('"minute";q=120;w=60, "day";q=1000;w=86400');
      expect(policy([minute(5, 1000, 60)])).toBe('"minute";q=60;w=60');
    }
  });

  it('when two windows have as many requests remaining, then the one that resets later is shown', () => {
    const headers = rateLimitHeaders({ outcome: 'allowed', windows: [minute(5), day(5)] }, NOW);
    expect(headers['RateLimit']).toBe('"day";r=5;t=43200');
  });

  it('when the minute window refuses, then it is the one shown, with Retry-After rounded up', () => {
    const decision: LimitDecision = { outcome: 'limited', windows: [minute(0, 41_200), day(900)], binding: 'minute', retryAfterMs: 41_200 };
    const headers = rateLimitHeaders(decision, NOW);
    expect(headers['X-RateLimit-Limit']).toBe('60');
    expect(headers['X-RateLimit-Remaining']).toBe('0');
    expect(headers['X-RateLimit-Reset']).toBe(String(Math.ceil((NOW + 41_200) / 1000)));
    expect(headers['RateLimit']).toBe('"minute";r=0;t=42');
    expect(headers['Retry-After']).toBe('42');
  });

  it('when the refusal is only milliseconds from its end, then Retry-After is still at least 1', () => {
    const decision: LimitDecision = { outcome: 'limited', windows: [minute(0, 3)], binding: 'minute', retryAfterMs: 3 };
    expect(rateLimitHeaders(decision, NOW)['Retry-After']).toBe('1');
  });

  it('when the key is banned, then Reset and Retry-After point at the ban end and nothing remains', () => {
    const bannedUntilMs = NOW + 900_000;
    const headers = rateLimitHeaders({ outcome: 'banned', windows: [minute(30), day(500)], bannedUntilMs }, NOW);
    expect(headers['X-RateLimit-Remaining']).toBe('0');
    expect(headers['X-RateLimit-Reset']).toBe(String(Math.ceil(bannedUntilMs / 1000)));
    expect(headers['Retry-After']).toBe('900');
    expect(headers['RateLimit']).toBe('"minute";r=0;t=900');
  });

  it('when the decision is anonymous, then the policy lists only the minute window', () => {
    const headers = rateLimitHeaders({ outcome: 'allowed', windows: [minute(3, 60_000, 60)] }, NOW);
    expect(headers['RateLimit-Policy']).toBe('"minute";q=60;w=60');
    expect(headers['X-RateLimit-Remaining']).toBe('3');
    expect(headers['Retry-After']).toBeUndefined();
  });

  describe('properties', () => {
    const windowArb = (name: 'minute' | 'day', windowSeconds: number) =>
      fc.record({
        name: fc.constant(name),
        limit: fc.integer({ min: 0, max: 1_000_000 }),
        remaining: fc.integer({ min: 0, max: 1_000_000 }),
        resetAtMs: fc.integer({ min: NOW - 5_000, max: NOW + 86_400_000 }),
        windowSeconds: fc.constant(windowSeconds),
      });
    const windowsArb = fc.oneof(fc.tuple(windowArb('minute', 60)), fc.tuple(windowArb('minute', 60), windowArb('day', 86_400))).map((ws) => [...ws] as WindowState[]);
    const decisionArb: fc.Arbitrary<LimitDecision> = fc.oneof(
      windowsArb.map((windows) => ({ outcome: 'allowed' as const, windows })),
      fc.tuple(windowsArb, fc.integer({ min: 0, max: 86_400_000 })).map(([windows, retryAfterMs]) => ({
        outcome: 'limited' as const,
        windows,
        binding: windows[windows.length - 1]!.name,
        retryAfterMs,
      })),
      fc.tuple(windowsArb, fc.integer({ min: NOW - 1_000, max: NOW + 3_600_000 })).map(([windows, bannedUntilMs]) => ({ outcome: 'banned' as const, windows, bannedUntilMs })),
    );

    it('when any decision is rendered, then Remaining ≤ Limit, Reset ≥ now and Retry-After ≥ 1 when present', () => {
      fc.assert(
        fc.property(decisionArb, (decision) => {
          const h = rateLimitHeaders(decision, NOW);
          const limit = Number(h['X-RateLimit-Limit']);
          const remaining = Number(h['X-RateLimit-Remaining']);
          expect(Number.isInteger(remaining) && remaining >= 0 && remaining <= limit).toBe(true);
          expect(Number(h['X-RateLimit-Reset'])).toBeGreaterThanOrEqual(Math.floor(NOW / 1000));
          expect(h['RateLimit']).toMatch(/^"(minute|day)";r=\d+;t=\d+$/);
          if (decision.outcome === 'allowed') expect(h['Retry-After']).toBeUndefined();
          else expect(Number(h['Retry-After'])).toBeGreaterThanOrEqual(1);
        }),
      );
    });

    it('when a decision is refused, then Retry-After covers the whole wait', () => {
      fc.assert(
        fc.property(decisionArb, (decision) => {
          if (decision.outcome === 'allowed') return;
          const waitMs = decision.outcome === 'limited' ? decision.retryAfterMs : decision.bannedUntilMs - NOW;
          expect(Number(rateLimitHeaders(decision, NOW)['Retry-After']) * 1000).toBeGreaterThanOrEqual(waitMs);
        }),
      );
    });
  });
});
