import { latencyOf, median, percentile } from './results';

describe('bench statistics', () => {
  it('when percentiles are taken, then they are nearest-rank values of the pooled samples', () => {
    const sorted = Float64Array.from({ length: 1000 }, (_, i) => i + 1);
    expect([percentile(sorted, 0.5), percentile(sorted, 0.99), percentile(sorted, 0.999), percentile(sorted, 1)]).toEqual([500, 990, 999, 1000]);
    // Rounds are pooled, not averaged: one slow round shows in the tail.
    const fast = Float64Array.from({ length: 990 }, () => 1);
    const slow = Float64Array.from({ length: 10 }, () => 50);
    expect(latencyOf([fast, slow])).toEqual({ p50: 1, p99: 1, p999: 50 });
  });

  it('when rounds disagree, then the median rate ignores the one disturbed round', () => {
    expect(median([1000, 400, 1010])).toBe(1000);
    expect(median([1, 2, 3, 4])).toBe(2.5);
  });
});
