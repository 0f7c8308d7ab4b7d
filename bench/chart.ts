import { readFileSync, writeFileSync } from 'node:fs';
import type { ScenarioResult } from './results';
import type { BenchReport } from './bench-report';
import type { ProcessName } from './system';

/**
 * The bench's chart as a self-contained SVG (no dependency, no script): one row per scenario, its
 * latency percentiles on the left (p50 dark over p99 over p99.9 light, on a log scale: sub-millisecond
 * medians and second-long stalls on one axis) and its CPU per request on the right, stacked by
 * process. The load generator is left out: it is not part of the system.
 */
export interface ChartInput {
  title: string;
  subtitle: string;
  rows: ScenarioResult[];
  /** Rows measured at a fixed rate, drawn below the others (latency only means something there). */
  halfRateRows?: ScenarioResult[];
  halfRateLabel?: string;
}

const PROCESS_COLOURS: [ProcessName, string, string][] = [
  ['gateway-redis', '#1f6feb', 'gateway'],
  ['gateway-memory', '#1f6feb', 'gateway'],
  ['gateway-traced', '#1f6feb', 'gateway'],
  ['gateway-baseline', '#1f6feb', 'gateway'],
  ['hop', '#8957e5', 'bare node:http hop'],
  ['express-hop', '#bf8700', 'bare Express+HPM hop'],
  ['express-hop-redis', '#bf8700', 'Express+HPM hop + Redis round trip'],
  ['express-hop-raw-redis', '#bf8700', 'Express+HPM hop + bare-socket round trip'],
  ['pets', '#2da44e', 'pets-service'],
  ['redis', '#d1242f', 'redis-server'],
];
const PERCENTILE_COLOURS = { p999: '#f0b37e', p99: '#e5883a', p50: '#9a4a09' };

const WIDTH = 1000;
const LABEL_W = 300;
const LAT_X = LABEL_W + 10;
const LAT_W = 300;
const CPU_X = LAT_X + LAT_W + 90;
const CPU_W = WIDTH - CPU_X - 80;
const ROW_H = 24;
const TOP = 84;
/** Where the log-scale latency axis starts. */
const MIN_LATENCY_MS = 0.1;

export function renderChart({ title, subtitle, rows, halfRateRows = [], halfRateLabel = '' }: ChartInput): string {
  const all = [...rows, ...halfRateRows];
  const maxLatency = decadeCeiling(Math.max(1, ...all.map((r) => r.latencyMs.p999)));
  const latencyX = (ms: number) => (Math.log10(Math.max(ms, MIN_LATENCY_MS) / MIN_LATENCY_MS) / Math.log10(maxLatency / MIN_LATENCY_MS)) * LAT_W;
  const cpuOf = (r: ScenarioResult) => PROCESS_COLOURS.reduce((sum, [name]) => sum + (r.cpuMicrosPerRequest[name] ?? 0), 0);
  const maxCpu = niceCeiling(Math.max(1, ...rows.map(cpuOf)));
  const gap = halfRateRows.length > 0 ? 34 : 0;
  const height = TOP + all.length * ROW_H + gap + 40;
  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="Helvetica, Arial, sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
    text(10, 20, title, { size: 16, weight: 'bold' }),
    text(10, 38, subtitle, { fill: '#57606a' }),
    text(LAT_X, 62, 'latency, ms (p50 · p99 · p99.9), log scale', { weight: 'bold' }),
    text(CPU_X, 62, `CPU per request, µs, axis 0–${maxCpu}`, { weight: 'bold' }),
  );

  const gridBottom = TOP + rows.length * ROW_H + gap + halfRateRows.length * ROW_H;
  for (let tick = MIN_LATENCY_MS; tick <= maxLatency; tick *= 10) {
    const x = LAT_X + latencyX(tick);
    out.push(`<line x1="${fmt(x)}" y1="${TOP - 4}" x2="${fmt(x)}" y2="${gridBottom}" stroke="#d0d7de" stroke-width="1"/>`, text(x, TOP - 6, String(Math.round(tick * 10) / 10), { size: 9, fill: '#57606a', anchor: 'middle' }));
  }

  const drawRow = (r: ScenarioResult, y: number, withCpu: boolean) => {
    out.push(text(LABEL_W, y + 15, r.label, { anchor: 'end' }));
    for (const key of ['p999', 'p99', 'p50'] as const) {
      const w = latencyX(r.latencyMs[key]);
      out.push(`<rect x="${LAT_X}" y="${y + 4}" width="${fmt(w)}" height="${ROW_H - 8}" fill="${PERCENTILE_COLOURS[key]}"><title>${key} ${r.latencyMs[key]} ms</title></rect>`);
    }
    out.push(text(LAT_X + LAT_W + 4, y + 15, `${short(r.latencyMs.p50)} · ${short(r.latencyMs.p99)} · ${short(r.latencyMs.p999)}`, { size: 10, fill: '#57606a' }));
    if (!withCpu) return;
    let x = CPU_X;
    for (const [name, colour] of PROCESS_COLOURS) {
      const micros = r.cpuMicrosPerRequest[name];
      if (micros === undefined || !(micros > 0)) continue;
      const w = (micros / maxCpu) * CPU_W;
      out.push(`<rect x="${fmt(x)}" y="${y + 4}" width="${fmt(w)}" height="${ROW_H - 8}" fill="${colour}"><title>${name} ${micros} µs</title></rect>`);
      x += w;
    }
    out.push(text(x + 4, y + 15, `${Math.round(cpuOf(r))}`, { size: 10, fill: '#57606a' }));
  };

  rows.forEach((r, i) => drawRow(r, TOP + i * ROW_H, true));
  if (halfRateRows.length > 0) {
    const y0 = TOP + rows.length * ROW_H + gap;
    out.push(text(LABEL_W, y0 - 10, halfRateLabel, { anchor: 'end', weight: 'bold' }));
    halfRateRows.forEach((r, i) => drawRow(r, y0 + i * ROW_H, false));
  }

  // Legend.
  let lx = 10;
  const ly = height - 16;
  const legend: [string, string][] = [
    ['p50', PERCENTILE_COLOURS.p50],
    ['p99', PERCENTILE_COLOURS.p99],
    ['p99.9', PERCENTILE_COLOURS.p999],
  ];
  const seen = new Set<string>();
  for (const [, colour, label] of PROCESS_COLOURS) {
    if (!seen.has(label)) legend.push([label, colour]);
    seen.add(label);
  }
  for (const [label, colour] of legend) {
    out.push(`<rect x="${lx}" y="${ly - 10}" width="12" height="12" fill="${colour}"/>`, text(lx + 16, ly, label));
    lx += 30 + label.length * 7;
  }
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

function text(x: number, y: number, content: string, style: { size?: number; weight?: string; fill?: string; anchor?: string } = {}): string {
  const attrs = [
    `x="${fmt(x)}"`,
    `y="${fmt(y)}"`,
    style.size ? `font-size="${style.size}"` : '',
    style.weight ? `font-weight="${style.weight}"` : '',
    style.fill ? `fill="${style.fill}"` : '',
    style.anchor ? `text-anchor="${style.anchor}"` : '',
  ].filter(Boolean);
  return `<text ${attrs.join(' ')}>${escapeXml(content)}</text>`;
}

export function escapeXml(value: string): string {
  return value.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!);
}

/** The next power of ten at or above `value`. */
export function decadeCeiling(value: number): number {
  return 10 ** Math.ceil(Math.log10(value));
}

/** The next of 1, 2, 5 × 10ⁿ at or above `value`. */
export function niceCeiling(value: number): number {
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 5, 10]) if (step * power >= value) return step * power;
  return 10 * power;
}

function fmt(n: number): string {
  return Number.isFinite(n) ? String(Math.round(n * 10) / 10) : '0';
}

function short(ms: number): string {
  return ms >= 10 ? String(Math.round(ms)) : String(Math.round(ms * 10) / 10);
}

/** The chart of a bench report (`latest.svg`). */
export function benchChart(report: BenchReport): string {
  return renderChart({
    title: `Animal Store bench, ${report.startedAt.slice(0, 10)}`,
    subtitle: `${report.machine.cpus} × ${report.machine.cpuModel}, Node ${report.machine.node}; ${report.settings.connections} connections, ${report.settings.runs ?? 1} runs × ${report.settings.rounds} × ${report.settings.seconds} s per scenario, interleaved, medians`,
    rows: report.scenarios,
    halfRateRows: report.halfRate.scenarios,
    halfRateLabel: `open loop at ${report.halfRate.rate} req/s`,
  });
}

// node dist/bench/chart.js REPORT.json OUT.svg: the chart of a saved report (e.g. a committed snapshot).
if (require.main === module) {
  const [input, output] = process.argv.slice(2);
  if (!input || !output) {
    process.stderr.write('usage: node dist/bench/chart.js REPORT.json OUT.svg\n');
    process.exit(2);
  }
  writeFileSync(output, benchChart(JSON.parse(readFileSync(input, 'utf8')) as BenchReport));
}
