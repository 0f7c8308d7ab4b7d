import type { RedisTraffic, RunSample } from './measure';
import { describe, type Scenario } from './scenarios';
import type { ProcessName, TargetName } from './system';
import type { RequestKind } from './scenarios';

export interface Latency {
  p50: number;
  p99: number;
  p999: number;
}

/** A scenario over all its rounds. */
export interface ScenarioResult {
  id: string;
  target: TargetName;
  request: RequestKind;
  label: string;
  rounds: number;
  requests: number;
  seconds: number;
  /** The median of the rounds' rates (robust to one round disturbed by other work on the machine). */
  requestsPerSecond: number;
  requestsPerSecondByRound: number[];
  /** Exact percentiles over every response of every round, ms. */
  latencyMs: Latency;
  statuses: Record<string, number>;
  /** Answers with another status than the scenario's, plus connection errors and timeouts. */
  unexpected: number;
  /** CPU of each process over all rounds ÷ requests, µs. */
  cpuMicrosPerRequest: Partial<Record<ProcessName, number>>;
  /** Average CPU use of each process while measured, in cores (1 = one core busy all the time). */
  cpuCores: Partial<Record<ProcessName, number>>;
  /** Commands Redis executed per request (INFO commandstats: a script's own calls count too). */
  redisCommandsPerRequest: { total: number; calls: number; byCommand: Record<string, number> };
  /** Commands sent to Redis per request, i.e. round trips (a separate run under MONITOR; Redis mode only). */
  redisRoundTrips?: RedisTraffic;
  peakRssMiB: Partial<Record<ProcessName, number>>;
  /** Average CPU used meanwhile by processes outside the bench's tree, in cores: how quiet the machine was. */
  otherCores: number;
}

export function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(p * sorted.length)));
  return sorted[rank - 1]!;
}

export function latencyOf(samples: Float64Array[]): Latency {
  const all = new Float64Array(samples.reduce((n, s) => n + s.length, 0));
  let at = 0;
  for (const s of samples) {
    all.set(s, at);
    at += s.length;
  }
  all.sort();
  return { p50: round(percentile(all, 0.5), 3), p99: round(percentile(all, 0.99), 3), p999: round(percentile(all, 0.999), 3) };
}

export function median(values: number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/** The processes worth reporting for a scenario: those its requests pass through, and the load generator. */
export function aggregate(s: Scenario, processes: ProcessName[], runs: RunSample[]): ScenarioResult {
  const requests = runs.reduce((n, r) => n + r.requests, 0);
  const seconds = runs.reduce((n, r) => n + r.seconds, 0);
  const statuses: Record<string, number> = {};
  let failures = 0;
  for (const run of runs) {
    for (const [code, count] of Object.entries(run.statuses)) statuses[code] = (statuses[code] ?? 0) + count;
    failures += run.errors + run.timeouts;
  }
  const reported = [...processes, 'load' as const];
  const cpuMicrosPerRequest: ScenarioResult['cpuMicrosPerRequest'] = {};
  const cpuCores: ScenarioResult['cpuCores'] = {};
  const peakRssMiB: ScenarioResult['peakRssMiB'] = {};
  for (const name of reported) {
    const micros = runs.reduce((n, r) => n + (r.cpuMicros[name] ?? 0), 0);
    cpuMicrosPerRequest[name] = requests > 0 ? round(micros / requests, 1) : Number.NaN;
    cpuCores[name] = seconds > 0 ? round(micros / 1e6 / seconds, 2) : Number.NaN;
    peakRssMiB[name] = round(Math.max(...runs.map((r) => r.peakRssKiB[name] ?? 0)) / 1024, 1);
  }
  const byCommand: Record<string, number> = {};
  let calls = 0;
  for (const run of runs) {
    for (const [command, n] of Object.entries(run.redisCalls)) {
      byCommand[command] = (byCommand[command] ?? 0) + n;
      calls += n;
    }
  }
  for (const command of Object.keys(byCommand)) byCommand[command] = round(byCommand[command]! / Math.max(1, requests), 4);
  const rates = runs.map((r) => round(r.requests / r.seconds, 0));
  return {
    id: s.id,
    target: s.target,
    request: s.request,
    label: describe(s),
    rounds: runs.length,
    requests,
    seconds: round(seconds, 2),
    requestsPerSecond: median(rates),
    requestsPerSecondByRound: rates,
    latencyMs: latencyOf(runs.map((r) => r.latenciesMs)),
    statuses,
    unexpected: requests - (statuses[String(s.expectedStatus)] ?? 0) + failures,
    cpuMicrosPerRequest,
    cpuCores,
    redisCommandsPerRequest: { total: round(calls / Math.max(1, requests), 4), calls, byCommand },
    peakRssMiB,
    otherCores: seconds > 0 ? round(runs.reduce((n, r) => n + r.otherWork.micros, 0) / 1e6 / seconds, 2) : Number.NaN,
  };
}
