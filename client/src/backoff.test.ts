import { BACKOFF_BASE_MS, BACKOFF_MAX_MS, backoffMs, retryDelayMs } from './backoff';

describe('backoff: exponential with full jitter', () => {
  it('when the dice roll from 0 to almost 1, then the wait spans 0 to the retry ceiling, which doubles each retry up to the maximum', () => {
    const ceilings = [0, 1, 2, 3, 4, 5, 6, 10].map((retry) => backoffMs(retry, () => 0.999_999) + 1);
    expect(ceilings).toEqual([250, 500, 1_000, 2_000, 4_000, BACKOFF_MAX_MS, BACKOFF_MAX_MS, BACKOFF_MAX_MS]);
    expect(backoffMs(3, () => 0)).toBe(0);
    expect(backoffMs(0, () => 0.5)).toBe(BACKOFF_BASE_MS / 2);
  });

  it('when drawn many times, then the waits spread over the whole range (full jitter, not a fixed delay)', () => {
    const waits = Array.from({ length: 2_000 }, () => backoffMs(2));
    expect(Math.min(...waits)).toBeLessThan(100);
    expect(Math.max(...waits)).toBeGreaterThan(900);
    expect(Math.max(...waits)).toBeLessThan(1_000);
  });

  it('when a 429 says Retry-After: 7, then the wait is 7 s plus at most a tenth, whatever the retry count', () => {
    expect(retryDelayMs(429, 7, 0, () => 0)).toBe(7_000);
    expect(retryDelayMs(429, 7, 3, () => 0.999)).toBe(7_699);
    expect(retryDelayMs(429, 60, 0, () => 0.999)).toBe(60_999);
  });

  it('when a 503 says Retry-After: 2, then the wait is at least 2 s; without one, the backoff', () => {
    expect(retryDelayMs(503, 2, 0, () => 0.5)).toBe(2_000);
    expect(retryDelayMs(503, undefined, 1, () => 0.5)).toBe(250);
    expect(retryDelayMs(502, 0, 10, () => 0.5)).toBe(4_000);
  });
});
