/**
 * What the garbage collector costs a request in the front it passes (issue 29), with and without
 * Node flags, alternated: collector pause time per request by kind, collections, the front's CPU
 * per request, the young generation's size and the front's peak RSS. Pause time is the collector's
 * own work, which other processes on the machine barely move, unlike CPU per request over a short
 * run.
 *
 *   node dist/bench/gc.js [TARGET] [REQUEST] [--requests N] [--rounds N] [--flags "A" --flags "B" …]
 *
 * TARGET and REQUEST as for `bench:alloc` (`gateway-redis list` by default); each `--flags` a set of
 * Node flags for the front, after the ones it always starts with (a gateway's `GATEWAY_NODE_FLAGS`;
 * a later flag wins), `""` none; every round starts the system once per
 * set, in turn, warms up 3 s, then counts N requests (20,000 by default) under the bench's load.
 * BENCH_NODE as for the bench.
 */
import path from 'node:path';
import { gcReportFile, type GcReport } from './gc-preload';
import { median } from './results';
import type { RequestKind } from './scenarios';
import { countUnderLoad } from './signalled-window';
import type { TargetName } from './system';

interface Measured {
  flags: string;
  requests: number;
  report: GcReport;
}

async function measure(target: TargetName, request: RequestKind, flags: string, requests: number): Promise<Measured> {
  const nodeFlags = [...flags.split(/\s+/).filter(Boolean), '--require', path.join(__dirname, 'gc-preload.js')];
  const counted = await countUnderLoad({ target, request, requests, nodeFlags, fileOf: gcReportFile, what: "the collector's report" });
  return { flags, requests: counted.requests, report: JSON.parse(counted.text) as GcReport };
}

const perRequest = (value: number, requests: number) => Math.round((value / requests) * 10) / 10;
/** Every collection's pause together, ms. */
const pauseMsOf = (report: GcReport) => Object.values(report.pauseMs).reduce((a, b) => a + b, 0);

function line({ flags, requests, report }: Measured): string {
  const pause = pauseMsOf(report);
  const kinds = Object.keys(report.collections)
    .sort()
    .map((kind) => `${kind} ${report.collections[kind]} (${perRequest(report.pauseMs[kind]! * 1000, requests)} µs/req)`)
    .join(', ');
  return `${(flags || '(its own flags)').padEnd(32)} GC ${perRequest(pause * 1000, requests)} µs/req, CPU ${perRequest(report.cpuMicros, requests)} µs/req, new space ${Math.round(report.newSpaceBytes / 2 ** 20)} MiB, peak RSS ${report.peakRssMiB} MiB; ${kinds}`;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const take = (name: string): string[] => {
    const values: string[] = [];
    for (let i = args.indexOf(name); i >= 0; i = args.indexOf(name)) values.push(args.splice(i, 2)[1] ?? '');
    return values;
  };
  const requests = Number(take('--requests')[0] ?? 20_000);
  const rounds = Number(take('--rounds')[0] ?? 2);
  const flagSets = take('--flags');
  const [target = 'gateway-redis', request = 'list'] = args as [TargetName?, RequestKind?];
  if (!Number.isInteger(requests) || requests < 1 || !Number.isInteger(rounds) || rounds < 1) throw new Error('--requests and --rounds take whole numbers ≥ 1');
  const sets = flagSets.length > 0 ? flagSets : [''];
  const results = new Map<string, Measured[]>(sets.map((flags) => [flags, []]));
  process.stdout.write(`${target} ${request} (${process.env.BENCH_NODE ?? `Node ${process.version}`}), ${requests} requests a count, ${rounds} rounds\n`);
  for (let round = 0; round < rounds; round += 1) {
    // The order rotates each round, so that neither set always runs first on a cold machine.
    for (let k = 0; k < sets.length; k += 1) {
      const flags = sets[(round + k) % sets.length]!;
      const measured = await measure(target, request, flags, requests);
      results.get(flags)!.push(measured);
      process.stdout.write(`round ${round + 1}: ${line(measured)}\n`);
    }
  }
  process.stdout.write('median of the rounds:\n');
  for (const [flags, runs] of results) {
    const gc = median(runs.map((m) => (pauseMsOf(m.report) * 1000) / m.requests));
    const cpu = median(runs.map((m) => m.report.cpuMicros / m.requests));
    const rss = median(runs.map((m) => m.report.peakRssMiB));
    process.stdout.write(`  ${(flags || '(its own flags)').padEnd(32)} GC ${Math.round(gc * 10) / 10} µs/req, CPU ${Math.round(cpu)} µs/req, peak RSS ${Math.round(rss)} MiB\n`);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
