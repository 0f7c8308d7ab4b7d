import { IDEMPOTENCY_TARGETS } from './idempotency';
import type { ScenarioResult } from './results';
import type { ProcessName, TargetName } from './system';

/** What the bench's keyed creates (`idempotency.ts`) tell: the cost of an `Idempotency-Key` on each target. */

export interface IdempotencyCost {
  target: TargetName;
  /** CPU per create, µs, of the pets-service and of the process in front of it (if any): without the header, with it. */
  cpuMicros: Partial<Record<ProcessName, { without: number; with: number; added: number }>>;
  p99Ms: { without: number; with: number; added: number };
  requestsPerSecond: { without: number; with: number };
}

const round1 = (n: number) => Math.round(n * 10) / 10;

/** The cost of the header on each target measured, from the plain and the keyed create's results. */
export function idempotencyCost(results: readonly ScenarioResult[]): IdempotencyCost[] {
  return IDEMPOTENCY_TARGETS.flatMap((target) => {
    const without = results.find((r) => r.id === `${target}/create`);
    const keyed = results.find((r) => r.id === `${target}/create-keyed`);
    if (!without || !keyed) return [];
    const processes: ProcessName[] = target === 'direct' ? ['pets'] : [target as ProcessName, 'pets'];
    const cpuMicros: IdempotencyCost['cpuMicros'] = {};
    for (const name of processes) {
      const [a, b] = [without.cpuMicrosPerRequest[name] ?? Number.NaN, keyed.cpuMicrosPerRequest[name] ?? Number.NaN];
      cpuMicros[name] = { without: a, with: b, added: round1(b - a) };
    }
    return [
      {
        target,
        cpuMicros,
        p99Ms: { without: without.latencyMs.p99, with: keyed.latencyMs.p99, added: Math.round((keyed.latencyMs.p99 - without.latencyMs.p99) * 1000) / 1000 },
        requestsPerSecond: { without: without.requestsPerSecond, with: keyed.requestsPerSecond },
      },
    ];
  });
}

/** One line per target, e.g. `direct: pets CPU 310 → 352 µs/create (+42), p99 12.1 → 13.0 ms (+0.9), 2,900 → 2,650 req/s`. */
export function idempotencyCostText(costs: readonly IdempotencyCost[]): string {
  return costs
    .map((c) => {
      const cpu = Object.entries(c.cpuMicros)
        .map(([name, v]) => `${name === 'pets' ? 'pets' : 'gateway'} CPU ${Math.round(v.without)} → ${Math.round(v.with)} µs (${v.added >= 0 ? '+' : ''}${Math.round(v.added)})`)
        .join(', ');
      const p99 = `p99 ${c.p99Ms.without.toFixed(2)} → ${c.p99Ms.with.toFixed(2)} ms (${c.p99Ms.added >= 0 ? '+' : ''}${c.p99Ms.added.toFixed(2)})`;
      return `  ${c.target}: ${cpu} per create; ${p99}; ${c.requestsPerSecond.without.toLocaleString('en-US')} → ${c.requestsPerSecond.with.toLocaleString('en-US')} req/s`;
    })
    .join('\n');
}
