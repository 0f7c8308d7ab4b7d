import { medianOf, medianScenarios } from './median-of-runs';
import type { ScenarioResult } from './results';

function result(rate: number, cpu: number, statuses: Record<string, number>, unexpected = 0): ScenarioResult {
  const requests = Object.values(statuses).reduce((a, b) => a + b, 0);
  return {
    id: 'gateway-redis/list',
    target: 'gateway-redis',
    request: 'list',
    label: 'gateway (Redis) · GET /v1/pets?limit=20',
    rounds: 3,
    requests,
    seconds: 15,
    requestsPerSecond: rate,
    requestsPerSecondByRound: [rate, rate, rate],
    latencyMs: { p50: cpu / 100, p99: cpu / 10, p999: cpu },
    statuses,
    unexpected,
    cpuMicrosPerRequest: { 'gateway-redis': cpu, pets: 300 },
    cpuCores: { 'gateway-redis': 0.9 },
    redisCommandsPerRequest: { total: 1, calls: requests, byCommand: { evalsha: 1 } },
    peakRssMiB: { 'gateway-redis': 80 },
    otherCores: 0.01,
  };
}

describe('the median of several runs', () => {
  it('when runs disagree, then each number is the median at its place, nested objects included, and text is the first run’s', () => {
    const ratios = [
      { cpu: 1.3, throughput: 0.8, inProcess: { cpu: 1.2 }, name: 'a' },
      { cpu: 1.1, throughput: 0.95, inProcess: { cpu: 1.0 }, name: 'b' },
      { cpu: 1.5, throughput: 0.9, inProcess: { cpu: 1.1 }, name: 'c' },
    ];
    expect(medianOf(ratios)).toEqual({ cpu: 1.3, throughput: 0.9, inProcess: { cpu: 1.1 }, name: 'a' });
    // A figure a run could not measure (NaN) does not drag the median.
    expect(medianOf([Number.NaN, 2, 4])).toBe(3);
  });

  it('when scenarios are combined, then rates and CPU are medians while requests, answers and unexpected answers add up', () => {
    const combined = medianScenarios([[result(5000, 150, { 200: 75_000 })], [result(4000, 220, { 200: 59_999, 500: 1 }, 1)], [result(5200, 140, { 200: 78_000 })]]);
    expect(combined).toHaveLength(1);
    const r = combined[0]!;
    expect([r.requestsPerSecond, r.cpuMicrosPerRequest['gateway-redis'], r.latencyMs.p999]).toEqual([5000, 150, 150]);
    expect([r.rounds, r.requests, r.seconds, r.unexpected]).toEqual([9, 213_000, 45, 1]);
    expect(r.statuses).toEqual({ 200: 212_999, 500: 1 });
    expect(r.requestsPerSecondByRound).toHaveLength(9);
  });
});
