import type { ScenarioResult } from './results';
import type { ProcessName } from './system';
import type { Check } from './targets';

/** The process in front of the pets-service in a scenario, if any (gateway or bare hop). */
function frontOf(r: ScenarioResult): ProcessName | undefined {
  if (r.target === 'hop') return 'hop';
  if (r.target === 'gateway-redis' || r.target === 'gateway-memory') return r.target;
  return undefined;
}

const num = (value: number | undefined, digits = 0): string =>
  value === undefined || !Number.isFinite(value) ? '–' : value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

/** A plain-text table, one row per scenario (columns as in the README). */
export function table(rows: ScenarioResult[]): string {
  const header = [
    'scenario',
    'req/s',
    'p50 ms',
    'p99 ms',
    'p99.9 ms',
    'CPU µs/req: front',
    'pets',
    'redis',
    'load gen',
    'Redis sent/req',
    'run/req',
    'peak RSS MiB: front',
    'pets',
    'redis',
    'unexpected',
  ];
  const lines = rows.map((r) => {
    const front = frontOf(r);
    return [
      r.label,
      num(r.requestsPerSecond),
      num(r.latencyMs.p50, 2),
      num(r.latencyMs.p99, 2),
      num(r.latencyMs.p999, 2),
      front ? num(r.cpuMicrosPerRequest[front], 0) : '–',
      num(r.cpuMicrosPerRequest.pets, 0),
      r.target === 'gateway-redis' ? num(r.cpuMicrosPerRequest.redis, 0) : '–',
      num(r.cpuMicrosPerRequest.load, 0),
      r.redisRoundTrips ? num(r.redisRoundTrips.sentTotalPerRequest, 3) : '–',
      r.target === 'gateway-redis' ? num(r.redisCommandsPerRequest.total, 3) : '–',
      front ? num(r.peakRssMiB[front], 0) : '–',
      num(r.peakRssMiB.pets, 0),
      r.target === 'gateway-redis' ? num(r.peakRssMiB.redis, 0) : '–',
      String(r.unexpected),
    ];
  });
  return align([header, ...lines]);
}

/** The same rows as a Markdown table, for the README and docs/performance.md. */
export function markdownTable(rows: ScenarioResult[]): string {
  const header = ['scenario', 'req/s', 'p50 ms', 'p99 ms', 'p99.9 ms', 'CPU µs/req (front · pets · redis)', 'Redis sent · run per req', 'peak RSS MiB (front · pets)'];
  const lines = rows.map((r) => {
    const front = frontOf(r);
    const cpu = [front ? num(r.cpuMicrosPerRequest[front]) : '–', num(r.cpuMicrosPerRequest.pets), r.target === 'gateway-redis' ? num(r.cpuMicrosPerRequest.redis) : '–'].join(' · ');
    return [
      r.label,
      num(r.requestsPerSecond),
      num(r.latencyMs.p50, 2),
      num(r.latencyMs.p99, 2),
      num(r.latencyMs.p999, 2),
      cpu,
      r.target === 'gateway-redis' ? `${r.redisRoundTrips ? num(r.redisRoundTrips.sentTotalPerRequest, 2) : '–'} · ${num(r.redisCommandsPerRequest.total, 2)}` : '–',
      `${front ? num(r.peakRssMiB[front]) : '–'} · ${num(r.peakRssMiB.pets)}`,
    ];
  });
  return [header, header.map(() => '---'), ...lines].map((cells) => `| ${cells.join(' | ')} |`).join('\n');
}

export function checksText(checks: Check[]): string {
  return align([['', 'target', 'measured', 'wanted'], ...checks.map((c) => [c.met ? 'met' : 'MISSED', c.name, String(c.value), c.target])]);
}

export function markdownChecks(checks: Check[]): string {
  const lines = checks.map((c) => `| ${c.name} | ${c.value} | ${c.target} | ${c.met ? 'met' : '**missed**'} |`);
  return ['| target | measured | wanted | |', '|---|---|---|---|', ...lines].join('\n');
}

function align(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => [...(row[i] ?? '')].length)));
  return rows
    .map((row) => row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  '))
    .join('\n');
}
