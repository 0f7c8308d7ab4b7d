/**
 * The figures of several runs of the whole comparison (`--runs`) as one: each figure the median of
 * the runs' (a run disturbed by something the bench did not see moves no figure by itself); counts
 * of requests and answers added up, so an unexpected answer in any run shows.
 */
import { median, type ScenarioResult } from './results';

/**
 * The median of each number found at the same place in every value (objects key by key, as deep as
 * they go); anything else, and a number missing or not finite in every value, is the first value's.
 */
export function medianOf<T>(values: readonly T[]): T {
  const first = values[0] as T;
  if (typeof first === 'number') {
    const finite = (values as readonly unknown[]).filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
    return (finite.length > 0 ? median(finite) : first) as T;
  }
  if (first === null || typeof first !== 'object' || Array.isArray(first)) return first;
  const objects = values.filter((v): v is T & object => v !== null && typeof v === 'object');
  const keys = [...new Set(objects.flatMap((o) => Object.keys(o)))];
  return Object.fromEntries(
    keys.map((key) => [key, medianOf(objects.map((o) => (o as Record<string, unknown>)[key]).filter((v) => v !== undefined))]),
  ) as T;
}

/** Each scenario of the first run, over all runs (`runs[i]` holds run i's results). */
export function medianScenarios(runs: readonly ScenarioResult[][]): ScenarioResult[] {
  return (runs[0] ?? []).map((first) => {
    const each = runs.map((results) => results.find((r) => r.id === first.id)).filter((r): r is ScenarioResult => r !== undefined);
    const sum = (figure: (r: ScenarioResult) => number) => each.reduce((n, r) => n + figure(r), 0);
    const statuses: Record<string, number> = {};
    for (const r of each) for (const [code, n] of Object.entries(r.statuses)) statuses[code] = (statuses[code] ?? 0) + n;
    return {
      ...medianOf(each),
      rounds: sum((r) => r.rounds),
      requests: sum((r) => r.requests),
      seconds: Math.round(sum((r) => r.seconds) * 100) / 100,
      requestsPerSecondByRound: each.flatMap((r) => r.requestsPerSecondByRound),
      statuses,
      unexpected: sum((r) => r.unexpected),
    };
  });
}
