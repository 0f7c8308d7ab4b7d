import type { ScenarioResult } from './results';

/**
 * What tracing costs a served request: the gateway on Redis with tracing at 10 % (`gateway-traced`,
 * exporting to a receiver that discards) against the same gateway with tracing off
 * (`gateway-redis`), on GET list, measured in the same interleaved rounds.
 */
export interface TracingCost {
  /** The gateway process's CPU per request, µs. */
  cpuMicros: { off: number; on: number; added: number };
  p99Ms: { off: number; on: number; added: number };
  requestsPerSecond: { off: number; on: number };
  /** OTLP exports the receiver got over the whole bench: tracing really was on. */
  exports: number;
}

const round1 = (n: number) => Math.round(n * 10) / 10;
const round3 = (n: number) => Math.round(n * 1000) / 1000;

export function tracingCost(results: readonly ScenarioResult[], exports: number): TracingCost | undefined {
  const off = results.find((r) => r.id === 'gateway-redis/list');
  const on = results.find((r) => r.id === 'gateway-traced/list');
  if (!off || !on) return undefined;
  const [cpuOff, cpuOn] = [off.cpuMicrosPerRequest['gateway-redis'] ?? Number.NaN, on.cpuMicrosPerRequest['gateway-traced'] ?? Number.NaN];
  return {
    cpuMicros: { off: cpuOff, on: cpuOn, added: round1(cpuOn - cpuOff) },
    p99Ms: { off: off.latencyMs.p99, on: on.latencyMs.p99, added: round3(on.latencyMs.p99 - off.latencyMs.p99) },
    requestsPerSecond: { off: off.requestsPerSecond, on: on.requestsPerSecond },
    exports,
  };
}

/** e.g. `gateway CPU 180 → 205 µs per request (+25); p99 4.10 → 4.30 ms (+0.20); 5,200 → 4,800 req/s`. */
export function tracingCostText(cost: TracingCost | undefined): string {
  if (!cost) return '  (not measured)';
  const sign = (n: number) => (n >= 0 ? '+' : '');
  const { cpuMicros: cpu, p99Ms: p99, requestsPerSecond: rate } = cost;
  return (
    `  gateway CPU ${Math.round(cpu.off)} → ${Math.round(cpu.on)} µs per request (${sign(cpu.added)}${Math.round(cpu.added)}); ` +
    `p99 ${p99.off.toFixed(2)} → ${p99.on.toFixed(2)} ms (${sign(p99.added)}${p99.added.toFixed(2)}); ` +
    `${rate.off.toLocaleString('en-US')} → ${rate.on.toLocaleString('en-US')} req/s; ${cost.exports} OTLP exports received`
  );
}
