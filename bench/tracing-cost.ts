import type { ScenarioResult } from './results';
import type { RequestKind } from './scenarios';
import type { ProcessName, TargetName } from './system';

/**
 * Two gateways on Redis measured on one request (GET list unless said) in the same interleaved
 * rounds: `off` the one compared against, `on` the other. What tracing costs a served request is
 * one such difference: the gateway with tracing at 10 % (`gateway-traced`, exporting to a receiver
 * that discards) against the same gateway with tracing off (`gateway-redis`); what a change costs
 * is another (`--baseline`).
 */
export interface GatewayDifference {
  /** The gateway process's CPU per request, µs. */
  cpuMicros: { off: number; on: number; added: number };
  p99Ms: { off: number; on: number; added: number };
  requestsPerSecond: { off: number; on: number };
}

export interface TracingCost extends GatewayDifference {
  /** OTLP exports the receiver got over the whole bench: tracing really was on. */
  exports: number;
}

const round1 = (n: number) => Math.round(n * 10) / 10;
const round3 = (n: number) => Math.round(n * 1000) / 1000;

export function gatewayDifference(results: readonly ScenarioResult[], off: TargetName & ProcessName, on: TargetName & ProcessName, request: RequestKind = 'list'): GatewayDifference | undefined {
  const [before, after] = [results.find((r) => r.id === `${off}/${request}`), results.find((r) => r.id === `${on}/${request}`)];
  if (!before || !after) return undefined;
  const [cpuOff, cpuOn] = [before.cpuMicrosPerRequest[off] ?? Number.NaN, after.cpuMicrosPerRequest[on] ?? Number.NaN];
  return {
    cpuMicros: { off: cpuOff, on: cpuOn, added: round1(cpuOn - cpuOff) },
    p99Ms: { off: before.latencyMs.p99, on: after.latencyMs.p99, added: round3(after.latencyMs.p99 - before.latencyMs.p99) },
    requestsPerSecond: { off: before.requestsPerSecond, on: after.requestsPerSecond },
  };
}

export function tracingCost(results: readonly ScenarioResult[], exports: number): TracingCost | undefined {
  const difference = gatewayDifference(results, 'gateway-redis', 'gateway-traced');
  return difference ? { ...difference, exports } : undefined;
}

/** e.g. `gateway CPU 180 → 205 µs per request (+25); p99 4.10 → 4.30 ms (+0.20); 5,200 → 4,800 req/s`. */
export function differenceText(cost: GatewayDifference | TracingCost | undefined): string {
  if (!cost) return '  (not measured)';
  const sign = (n: number) => (n >= 0 ? '+' : '');
  const { cpuMicros: cpu, p99Ms: p99, requestsPerSecond: rate } = cost;
  const ratio = (cpu.on / cpu.off).toFixed(3);
  return (
    `  gateway CPU ${Math.round(cpu.off)} → ${Math.round(cpu.on)} µs per request (${sign(cpu.added)}${Math.round(cpu.added)}, × ${ratio}); ` +
    `p99 ${p99.off.toFixed(2)} → ${p99.on.toFixed(2)} ms (${sign(p99.added)}${p99.added.toFixed(2)}); ` +
    `${rate.off.toLocaleString('en-US')} → ${rate.on.toLocaleString('en-US')} req/s` +
    ('exports' in cost ? `; ${cost.exports} OTLP exports received` : '')
  );
}
