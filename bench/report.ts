import type { ScenarioResult } from './results';
import type { ProcessName } from './system';
import type { Check } from './targets';

/** The process in front of the pets-service in a scenario, if any (a gateway or a yardstick hop). */
function frontOf(r: ScenarioResult): ProcessName | undefined {
  return r.target === 'direct' ? undefined : r.target;
}

const num = (value: number | undefined, digits = 0): string =>
  value === undefined || !Number.isFinite(value) ? '–' : value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

/** One scenario's figures, formatted once for both tables ('–' where a process is not in the scenario). */
function figuresOf(r: ScenarioResult, digits: number) {
  const front = frontOf(r);
  const redis = r.target === 'gateway-redis' || r.target === 'gateway-traced' || r.target === 'gateway-baseline';
  return {
    label: r.label,
    requestsPerSecond: num(r.requestsPerSecond),
    latency: [num(r.latencyMs.p50, 2), num(r.latencyMs.p99, 2), num(r.latencyMs.p999, 2)],
    cpu: { front: front ? num(r.cpuMicrosPerRequest[front]) : '–', pets: num(r.cpuMicrosPerRequest.pets), redis: redis ? num(r.cpuMicrosPerRequest.redis) : '–', load: num(r.cpuMicrosPerRequest.load) },
    redisSent: r.redisRoundTrips ? num(r.redisRoundTrips.sentTotalPerRequest, digits) : '–',
    redisRun: redis ? num(r.redisCommandsPerRequest.total, digits) : '–',
    rss: { front: front ? num(r.peakRssMiB[front]) : '–', pets: num(r.peakRssMiB.pets), redis: redis ? num(r.peakRssMiB.redis) : '–' },
    redis,
  };
}

/** A plain-text table, one row per scenario (columns as in the README). */
export function table(rows: ScenarioResult[]): string {
  const header = ['scenario', 'req/s', 'p50 ms', 'p99 ms', 'p99.9 ms', 'CPU µs/req: front', 'pets', 'redis', 'load gen', 'Redis sent/req', 'run/req', 'peak RSS MiB: front', 'pets', 'redis', 'unexpected'];
  const lines = rows.map((r) => {
    const f = figuresOf(r, 3);
    return [f.label, f.requestsPerSecond, ...f.latency, f.cpu.front, f.cpu.pets, f.cpu.redis, f.cpu.load, f.redisSent, f.redisRun, f.rss.front, f.rss.pets, f.rss.redis, String(r.unexpected)];
  });
  return align([header, ...lines]);
}

/** The same rows as a Markdown table, for the README and docs/performance.md. */
export function markdownTable(rows: ScenarioResult[]): string {
  const header = ['scenario', 'req/s', 'p50 ms', 'p99 ms', 'p99.9 ms', 'CPU µs/req (front · pets · redis)', 'Redis sent · run per req', 'peak RSS MiB (front · pets)'];
  const lines = rows.map((r) => {
    const f = figuresOf(r, 2);
    return [
      f.label,
      f.requestsPerSecond,
      ...f.latency,
      [f.cpu.front, f.cpu.pets, f.cpu.redis].join(' · '),
      f.redis ? `${f.redisSent} · ${f.redisRun}` : '–',
      `${f.rss.front} · ${f.rss.pets}`,
    ];
  });
  return [header, header.map(() => '---'), ...lines].map((cells) => `| ${cells.join(' | ')} |`).join('\n');
}

/** The checks, each `met` or `MISSED` when `judged` (not when the run gave no verdict), else only its figure. */
export function checksText(checks: Check[], judged = true): string {
  return align([['', 'issue', 'target', 'measured', 'wanted'], ...checks.map((c) => [judged ? (c.met ? 'met' : 'MISSED') : '–', String(c.issue), c.name, String(c.value), c.target])]);
}

export function markdownChecks(checks: Check[]): string {
  const lines = checks.map((c) => `| ${c.issue} | ${c.name} | ${c.value} | ${c.target} | ${c.met ? 'met' : '**missed**'} |`);
  return ['| issue | target | measured | wanted | |', '|---|---|---|---|---|', ...lines].join('\n');
}

/** One bench run's figures for one Node executable of the fronts (gateways and hops). */
export interface NodeRun {
  /** e.g. `v24.21.0`. */
  node: string;
  scenarios: ScenarioResult[];
  checks: Check[];
  /** False when the run gave no verdict (other work on the machine): figures without met/MISSED. */
  judged: boolean;
}

const FRONTS_COMPARED = ['hop/list', 'express-hop/list', 'express-hop-redis/list', 'express-hop-raw-redis/list', 'gateway-redis/list'];

/**
 * The fronts side by side on every Node measured (GET list): CPU per request of the process in
 * front, req/s and p99, each also as a ratio to the bare Express + HPM hop of the same run; then
 * every target, one column per Node.
 */
export function nodesText(runs: NodeRun[]): string {
  const rows: string[][] = [['front · GET /v1/pets?limit=20', 'Node', 'CPU µs/req', '÷ Express+HPM', 'req/s', '÷ Express+HPM', 'p99 ms']];
  for (const run of runs) {
    const byId = (id: string) => run.scenarios.find((r) => r.id === id);
    const yardstick = byId('express-hop/list');
    for (const id of FRONTS_COMPARED) {
      const r = byId(id);
      if (!r) continue;
      const cpu = r.cpuMicrosPerRequest[frontOf(r)!];
      const ratio = (a: number | undefined, b: number | undefined) => (a !== undefined && b !== undefined ? num(a / b, 2) : '–');
      rows.push([r.label.replace(/ · .*/, ''), run.node, num(cpu), ratio(cpu, yardstick?.cpuMicrosPerRequest['express-hop']), num(r.requestsPerSecond), ratio(r.requestsPerSecond, yardstick?.requestsPerSecond), num(r.latencyMs.p99, 2)]);
    }
  }
  const names = [...new Set(runs.flatMap((run) => run.checks.map((c) => c.name)))];
  const targets = [
    ['', 'issue', 'target', 'wanted', ...runs.map((run) => run.node)],
    ...names.map((name) => {
      const checks = runs.map((run) => run.checks.find((c) => c.name === name));
      const first = checks.find(Boolean)!;
      const judged = runs.every((run) => run.judged);
      const mark = (met: boolean | undefined) => (judged ? (met ? 'met' : 'MISSED') : 'no verdict');
      return [mark(checks.every((c) => c?.met)), String(first.issue), name, first.target, ...checks.map((c, i) => (c ? `${c.value}${runs[i]!.judged ? ` ${c.met ? 'met' : 'MISSED'}` : ''}` : '–'))];
    }),
  ];
  return `${align(rows)}\n\n${align(targets)}`;
}

function align(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => [...(row[i] ?? '')].length)));
  return rows
    .map((row) => row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  '))
    .join('\n');
}
