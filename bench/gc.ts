/**
 * What the garbage collector costs a request in the front it passes (issue 29), with and without
 * Node flags, alternated: collector pause time per request by kind, collections, the front's CPU
 * per request (its kernel part, and by thread: the main thread against V8's helpers, which do the
 * parallel scavenges and concurrent marking), the young generation's size and the front's peak
 * RSS. Pause time is the collector's own work, which other processes on the machine barely move,
 * unlike CPU per request over a short run.
 *
 *   node dist/bench/gc.js [TARGET] [REQUEST] [--requests N] [--rounds N] [--flags "A" --flags "B" …]
 *   node dist/bench/gc.js gateway-redis [REQUEST] [--flags "A"] --variant as-built --variant floor-v1 …
 *
 * TARGET and REQUEST as for `bench:alloc` (`gateway-redis list` by default); each `--flags` a set of
 * Node flags for the front, after the ones it always starts with (a gateway's `GATEWAY_NODE_FLAGS`;
 * a later flag wins), `""` none. Each `--variant` instead a copy of this build with one feature
 * taken away (`patched-build.ts`; `as-built` none), its gateway measured in place of this one's:
 * what a feature costs, the build against itself. Every round starts the system once per set or
 * variant, in turn, warms up 3 s, then counts N requests (20,000 by default) under the bench's
 * load. BENCH_NODE as for the bench.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gcReportFile, type GcReport } from './gc-preload';
import { STOLEN_LIMIT_CORES } from './other-work';
import { patchedBuild } from './patched-build';
import { stolenMicros } from './proc';
import { median } from './results';
import { takeOption } from './take-option';
import type { RequestKind } from './scenarios';
import { countUnderLoad } from './signalled-window';
import type { TargetName } from './system';

/** What one count runs: Node flags for the front, and the gateway of a patched copy or this build's. */
interface Setup {
  label: string;
  flags: string;
  target: TargetName;
  gateway?: string;
}

interface Measured {
  label: string;
  requests: number;
  report: GcReport;
  /** The hypervisor's stolen time over the count, in cores: above 0.1 the count is not evidence (bench/other-work.ts). */
  stolenCores: number;
}

async function measure({ label, flags, target, gateway }: Setup, request: RequestKind, requests: number): Promise<Measured> {
  const nodeFlags = [...flags.split(/\s+/).filter(Boolean), '--require', path.join(__dirname, 'gc-preload.js')];
  const [stolenBefore, startedAt] = [stolenMicros(), performance.now()];
  const counted = await countUnderLoad({ target, request, requests, nodeFlags, fileOf: gcReportFile, what: "the collector's report", ...(gateway ? { baselineGateway: gateway } : {}) });
  const stolenCores = (stolenMicros() - stolenBefore) / ((performance.now() - startedAt) * 1000);
  return { label, requests: counted.requests, report: JSON.parse(counted.text) as GcReport, stolenCores };
}

const perRequest = (value: number, requests: number) => Math.round((value / requests) * 10) / 10;
/** Every collection's pause together, ms. */
const pauseMsOf = (report: GcReport) => Object.values(report.pauseMs).reduce((a, b) => a + b, 0);

function line({ label, requests, report, stolenCores }: Measured): string {
  const pause = pauseMsOf(report);
  const kinds = Object.keys(report.collections)
    .sort()
    .map((kind) => `${kind} ${report.collections[kind]} (${perRequest(report.pauseMs[kind]! * 1000, requests)} µs/req)`)
    .join(', ');
  return `${label.padEnd(32)} GC ${perRequest(pause * 1000, requests)} µs/req, CPU ${perRequest(report.cpuMicros, requests)} µs/req (system ${perRequest(report.systemMicros, requests)}), new space ${Math.round(report.newSpaceBytes / 2 ** 20)} MiB, peak RSS ${report.peakRssMiB} MiB; ${kinds}; threads ${Object.entries(report.threadMs).filter(([, ms]) => ms > 0).map(([name, ms]) => `${name} ${perRequest(ms * 1000, requests)}`).join(', ')} µs/req; stolen ${stolenCores.toFixed(2)} cores${stolenCores > STOLEN_LIMIT_CORES ? ' (above the limit: not evidence)' : ''}`;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const take = (name: string) => takeOption(args, name);
  const requests = Number(take('--requests')[0] ?? 20_000);
  const rounds = Number(take('--rounds')[0] ?? 2);
  const flagSets = take('--flags');
  const variants = take('--variant');
  const [target = 'gateway-redis', request = 'list'] = args as [TargetName?, RequestKind?];
  if (!Number.isInteger(requests) || requests < 1 || !Number.isInteger(rounds) || rounds < 1) throw new Error('--requests and --rounds take whole numbers ≥ 1');
  if (variants.length > 0 && (target !== 'gateway-redis' || flagSets.length > 1)) throw new Error('--variant measures gateway-redis, with one --flags at most');
  const copies = variants.length > 0 ? mkdtempSync(path.join(os.tmpdir(), 'animal-store-variants-')) : undefined;
  const flagsLabel = (flags: string) => flags || '(its own flags)';
  const setups: Setup[] =
    variants.length > 0
      ? variants.map((variant) => ({ label: variant, flags: flagSets[0] ?? '', target: 'gateway-baseline', gateway: patchedBuild(variant, path.join(copies!, variant)) }))
      : (flagSets.length > 0 ? flagSets : ['']).map((flags) => ({ label: flagsLabel(flags), flags, target }));
  const results = new Map<string, Measured[]>(setups.map(({ label }) => [label, []]));
  process.stdout.write(`${target} ${request} (${process.env.BENCH_NODE ?? `Node ${process.version}`}), ${requests} requests a count, ${rounds} rounds\n`);
  try {
    for (let round = 0; round < rounds; round += 1) {
      // The order rotates each round, so that neither set always runs first on a cold machine.
      for (let k = 0; k < setups.length; k += 1) {
        const measured = await measure(setups[(round + k) % setups.length]!, request, requests);
        results.get(measured.label)!.push(measured);
        process.stdout.write(`round ${round + 1}: ${line(measured)}\n`);
      }
    }
  } finally {
    if (copies) rmSync(copies, { recursive: true, force: true });
  }
  process.stdout.write('median of the rounds:\n');
  for (const [label, runs] of results) {
    const gc = median(runs.map((m) => (pauseMsOf(m.report) * 1000) / m.requests));
    const cpu = median(runs.map((m) => m.report.cpuMicros / m.requests));
    const system = median(runs.map((m) => m.report.systemMicros / m.requests));
    const rss = median(runs.map((m) => m.report.peakRssMiB));
    process.stdout.write(`  ${label.padEnd(32)} GC ${Math.round(gc * 10) / 10} µs/req, CPU ${Math.round(cpu)} µs/req (system ${Math.round(system)}), peak RSS ${Math.round(rss)} MiB\n`);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
