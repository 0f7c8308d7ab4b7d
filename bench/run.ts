/**
 * `npm run bench`: what the gateway costs per request, side by side with what the pets-service
 * costs alone, what a bare `node:http` hop costs and what a bare Express + http-proxy-middleware hop
 * costs, on this machine, in one run (and, with `BENCH_NODE`, in a second run with the gateways and
 * hops on another Node).
 *
 * Real processes from the compiled build (pets-service, gateway in Redis mode and in-process mode,
 * the hops of `bare-hop.ts` and `express-hop.ts`, a redis-server of the bench's own) and a load
 * generator in a process of its own. Scenarios run interleaved (rounds of each in turn, each round
 * in an order of its own: round-order.ts) so that drift and other work on the machine
 * affect all of them alike; the whole interleaved comparison runs `--runs` times (3 by
 * default), each on processes started for it, and the report gives the median of each figure. Each process's CPU is read from /proc,
 * Redis's work from INFO commandstats; other processes' CPU from /proc as well, and above 0.1 of a
 * core while measuring the bench gives no verdict (`other-work.ts`, `verdict.ts`). See `--help` (options.ts) for the modes and docs/performance.md for the method.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BenchReport, BenchRun, FrontNode } from './bench-report';
import { benchChart } from './chart';
import { idempotencyCost, idempotencyCostText } from './idempotency-cost';
import { countRedisTraffic, measure, type RedisTraffic, type RunSample } from './measure';
import { medianOf, medianScenarios } from './median-of-runs';
import { machineInfo, writeResults } from './output';
import { killChildrenOnExit } from './processes';
import { USAGE, UsageError, parseOptions, type BenchOptions } from './options';
import { disturbanceOf, OTHER_WORK_LIMIT_CORES, otherWorkFigure, sumOtherWork, type OtherWork } from './other-work';
import { runProfiles } from './profile';
import { checksText, nodesText, table } from './report';
import { aggregate, median, round, type ScenarioResult } from './results';
import { roundOrder } from './round-order';
import { orderFor, scenario, scenariosFor, type Scenario } from './scenarios';
import { runSoak } from './soak';
import { waitFor } from '../tools/ports';
import { gatewayDifference, tracingCost, differenceText } from './tracing-cost';
import { TARGET_LABELS, startBenchSystem, type BenchSystem, type TargetName } from './system';
import { checksOf, ratiosOf } from './targets';
import { EXIT_STATUS, exitStatus, verdictOf } from './verdict';

const progress = (line: string) => process.stderr.write(`${line}\n`);

async function runBench(options: BenchOptions, frontNode: FrontNode): Promise<BenchReport> {
  const startedAt = new Date().toISOString();
  const machine = machineInfo();
  const targets: TargetName[] = [
    'direct',
    'hop',
    'express-hop',
    'express-hop-redis',
    'express-hop-raw-redis',
    'gateway-redis',
    // The traced gateway stays last in each round (round-order.ts) and the next run waits until it
    // is quiet (measure.ts): a scenario right after it measured itself slower (its exports and
    // collection go on after its load ends); an A/A run (--baseline of this same build) read the
    // baseline × 1.1–2 of this build there.
    ...(options.baselineGateway ? (['gateway-baseline'] as const) : []),
    ...(options.inProcessGateway ? (['gateway-memory'] as const) : []),
    'gateway-traced',
  ];
  const scenarios = scenariosFor(targets);
  progress(`bench (${options.mode}), gateways and hops on Node ${frontNode.version}: ${options.runs} runs × ${scenarios.length} scenarios × ${options.rounds} rounds × ${options.seconds} s, ${options.connections} connections`);
  const startSystem = () =>
    startBenchSystem({
      inProcessGateway: options.inProcessGateway,
      tracedGateway: true,
      ...(options.baselineGateway ? { baselineGateway: options.baselineGateway } : {}),
      hops: ['hop', 'express-hop', 'express-hop-redis', 'express-hop-raw-redis'],
      seedPets: 50,
      logLevel: options.logLevel,
      frontNode: frontNode.path,
      ...(options.baselineNodeOptions ? { nodeOptions: { 'gateway-baseline': options.baselineNodeOptions } } : {}),
    });
  const runs: BenchRun[] = [];
  const works: OtherWork[] = [];
  let measuredSeconds = 0;
  let exports = 0;
  let roundTrips: Map<string, RedisTraffic> | undefined;
  // Each run on processes of its own: two processes of the very same build differ by 5–15 % in CPU
  // per request (an A/A run, docs/performance.md), so the median of three runs on one set of
  // processes was the median of one instance; on fresh ones it spans three.
  for (let n = 1; n <= options.runs; n += 1) {
    progress(`run ${n}/${options.runs}: starting its processes`);
    const system = await startSystem();
    try {
      await warmUp(system, scenarios, options);
      // Counted on every run, since it is also warm-up that every run must have alike; kept from the first.
      const counted = await countRoundTrips(system, scenarios, options);
      roundTrips ??= counted;
      const { run, samples } = await comparison(system, scenarios, options, roundTrips, (n - 1) * options.rounds);
      runs.push(run);
      works.push(...samples.map((s) => s.otherWork));
      measuredSeconds += samples.reduce((sum, s) => sum + s.seconds, 0);
      // The traced gateway exports in the SDK's batches (every 5 s): the last one may still be due.
      await waitFor(() => (system.receiver?.exports ?? 1) > 0, 6_000, 'an OTLP export').catch(() => undefined);
      exports += system.receiver?.exports ?? 0;
    } finally {
      await system.stop();
    }
  }
  const results = medianScenarios(runs.map((r) => r.scenarios));
  const ratios = medianOf(runs.map((r) => r.ratios));
  const halfRate = { rate: median(runs.map((r) => r.halfRate.rate)), scenarios: medianScenarios(runs.map((r) => r.halfRate.scenarios)), addedP99Ms: round(median(runs.map((r) => r.halfRate.addedP99Ms)), 3) };
  const checks = checksOf(ratios, halfRate.addedP99Ms);
  const otherWork = otherWorkFigure(sumOtherWork(works), measuredSeconds);
  const unexpected = [...results, ...halfRate.scenarios].filter((r) => r.unexpected > 0).map((r) => `${r.label}: ${r.unexpected} unexpected answers ${JSON.stringify(r.statuses)}`);
  const missedTargets = checks.filter((c) => !c.met).map((c) => `${c.name}: ${c.value}, wanted ${c.target}`);
  const { verdict, noVerdictBecause } = verdictOf({ judge: options.checkTargets, otherWork, unexpected, missedTargets });
  return {
    kind: 'bench',
    mode: options.mode === 'quick' ? 'quick' : 'full',
    startedAt,
    finishedAt: new Date().toISOString(),
    machine: { ...machine, loadAverageAfter: os.loadavg().map((x) => round(x, 2)) },
    frontNode,
    settings: {
      runs: options.runs,
      rounds: options.rounds,
      repeats: options.repeats,
      seconds: options.seconds,
      warmupSeconds: options.warmupSeconds,
      connections: options.connections,
      inProcessGateway: options.inProcessGateway,
      logLevel: options.logLevel,
    },
    scenarios: results,
    halfRate,
    ratios,
    idempotency: idempotencyCost(results),
    tracing: tracingCost(results, exports),
    ...(options.baselineGateway
      ? { baseline: gatewayDifference(results, 'gateway-baseline', 'gateway-redis'), baselineRefused: gatewayDifference(results, 'gateway-baseline', 'gateway-redis', 'refused') }
      : {}),
    ...(options.baselineNodeOptions ? { baselineNodeOptions: options.baselineNodeOptions } : {}),
    checks,
    otherWork,
    verdict,
    ...(noVerdictBecause ? { noVerdictBecause } : {}),
    missed: [...unexpected, ...(verdict === 'missed' ? missedTargets : [])],
    warnings: warningsOf([...results, ...halfRate.scenarios]),
    runs,
  };
}

/** A warm-up of every scenario (`--warmup` seconds each), unmeasured. */
async function warmUp(system: BenchSystem, scenarios: Scenario[], options: BenchOptions): Promise<void> {
  if (options.warmupSeconds <= 0) return;
  const load = { connections: options.connections, seconds: options.warmupSeconds, recordLatencies: false };
  for (const s of scenarios) await system.load.run(orderFor(system, s, load));
}

/**
 * Round trips per request: separate runs of a fixed number of requests under MONITOR (not measured
 * runs: MONITOR costs Redis CPU). The baseline's too: the count is also the last warm-up before the
 * runs, which an A/A run showed must be the same for both builds.
 */
async function countRoundTrips(system: BenchSystem, scenarios: Scenario[], options: BenchOptions): Promise<Map<string, RedisTraffic>> {
  const roundTrips = new Map<string, RedisTraffic>();
  const order = { connections: options.connections, seconds: options.seconds, amount: options.mode === 'quick' ? 200 : 3_000, recordLatencies: false };
  for (const s of scenarios.filter((x) => x.target === 'gateway-redis' || x.target === 'gateway-baseline')) {
    roundTrips.set(s.id, await countRedisTraffic(system, orderFor(system, s, order), options.settleMs));
  }
  return roundTrips;
}

/** One run of the whole comparison: every scenario as fast as it goes, then GET list at half the gateway's rate. */
async function comparison(
  system: BenchSystem,
  scenarios: Scenario[],
  options: BenchOptions,
  roundTrips: Map<string, RedisTraffic>,
  firstTurn: number,
): Promise<{ run: BenchRun; samples: RunSample[] }> {
  const load = { connections: options.connections, seconds: options.seconds };
  const maxRate = await interleave(system, scenarios, options, firstTurn, (s) => orderFor(system, s, { ...load, recordLatencies: true }));
  const results = scenarios.map((s) => ({ ...aggregate(s, system.targets[s.target]!.processes, maxRate.get(s.id)!), ...(roundTrips.has(s.id) ? { redisRoundTrips: roundTrips.get(s.id)! } : {}) }));
  const byId = (id: string) => {
    const found = results.find((r) => r.id === id);
    if (!found) throw new Error(`no result for ${id}`);
    return found;
  };
  // Latency at half the gateway's maximum rate: the same open-loop rate on each target.
  const rate = Math.max(1, Math.round(byId('gateway-redis/list').requestsPerSecond / 2));
  const halfRateScenarios = (['direct', 'hop', 'express-hop', 'gateway-redis'] as const).map((t) => scenario(t, 'list'));
  progress(`half rate: ${rate} req/s`);
  const half = await interleave(system, halfRateScenarios, options, firstTurn, (s) => orderFor(system, s, { ...load, overallRate: rate, recordLatencies: true }));
  const halfResults = halfRateScenarios.map((s) => ({
    ...aggregate(s, system.targets[s.target]!.processes, half.get(s.id)!),
    label: `${TARGET_LABELS[s.target]} · GET list at ${rate}/s`,
  }));
  const halfP99 = (target: TargetName) => halfResults.find((r) => r.target === target)!.latencyMs.p99;
  const samples = [...maxRate.values(), ...half.values()].flat();
  return {
    run: {
      scenarios: results,
      halfRate: { rate, scenarios: halfResults, addedP99Ms: round(halfP99('gateway-redis') - halfP99('direct'), 3) },
      ratios: ratiosOf(byId, options.inProcessGateway),
      otherWork: otherWorkFigure(sumOtherWork(samples.map((s) => s.otherWork)), samples.reduce((sum, s) => sum + s.seconds, 0)),
    },
    samples,
  };
}

/**
 * Rounds of every scenario in turn, each round in the order `roundOrder` gives its turn (the runs'
 * rounds are numbered on from `firstTurn`); the runs of each scenario, by id. A run during which other
 * processes took more than the verdict's limit is measured again, up to `repeats` times (the last
 * attempt is kept whatever it saw, and counts in the report's other work).
 */
async function interleave(
  system: BenchSystem,
  scenarios: Scenario[],
  { rounds, repeats, settleMs }: { rounds: number; repeats: number; settleMs: number },
  firstTurn: number,
  orderOf: (s: Scenario) => ReturnType<typeof orderFor>,
): Promise<Map<string, RunSample[]>> {
  const runs = new Map<string, RunSample[]>(scenarios.map((s) => [s.id, []]));
  for (let round = 1; round <= rounds; round += 1) {
    for (const s of roundOrder(scenarios, firstTurn + round - 1)) {
      for (let attempt = 0; ; attempt += 1) {
        const sample = await measure(system, orderOf(s), settleMs);
        const disturbed = disturbanceOf(sample.otherWork, sample.seconds);
        progress(`  round ${round}/${rounds}  ${s.id.padEnd(26)} ${Math.round(sample.requests / sample.seconds)} req/s${disturbed ? `  (${disturbed}${attempt < repeats ? ', again' : ''})` : ''}`);
        if (!disturbed || attempt >= repeats) {
          runs.get(s.id)!.push(sample);
          break;
        }
      }
    }
  }
  return runs;
}

function warningsOf(results: ScenarioResult[]): string[] {
  const warnings: string[] = [];
  for (const r of results) {
    if ((r.cpuCores.load ?? 0) > 0.9) warnings.push(`${r.label}: the load generator used ${r.cpuCores.load} cores and may be what limits the rate`);
    if (r.otherCores > OTHER_WORK_LIMIT_CORES) warnings.push(`${r.label}: other processes used ${r.otherCores} cores on average meanwhile`);
  }
  return warnings;
}

const TARGETS_HEADING: Record<BenchReport['verdict'], string> = {
  met: 'Targets (all met)',
  missed: 'Targets',
  broken: 'Targets (unexpected answers: see below)',
  refused: 'Targets (no verdict: the machine was not idle)',
  'not judged': 'Targets (quick mode: reported, not checked)',
};

/** e.g. `other processes: 0.04 cores (limit 0.1) over 540 s measured; kernel threads 0.01; per run 0.03, 0.05, 0.04`. */
function otherWorkText(report: BenchReport): string {
  const w = report.otherWork;
  const busiest = w.busiest.length > 0 ? `; busiest ${w.busiest.map((p) => `${p.name} ${p.cores}`).join(', ')}` : '';
  return `other processes: ${w.cores} cores (limit ${w.limitCores}) over ${w.seconds} s measured; kernel threads ${w.kernelCores}; stolen by the hypervisor ${w.stolenCores} (limit ${w.stolenLimitCores}); per run ${report.runs.map((r) => r.otherWork.cores).join(', ')}${busiest}`;
}

function print(report: BenchReport): void {
  const lines = [
    '',
    `Animal Store bench (${report.mode}) ${report.startedAt}  ${report.machine.cpus} × ${report.machine.cpuModel}, gateways and hops on Node ${report.frontNode.version}, pets-service and load on Node ${report.machine.node}`,
    `${report.settings.runs} runs (each figure the median) of ${report.settings.rounds} rounds × ${report.settings.seconds} s per scenario, ${report.settings.connections} connections, interleaved; LOG_LEVEL=${report.settings.logLevel}`,
    otherWorkText(report),
    '',
    table(report.scenarios),
    '',
    `At half the gateway's maximum rate (${report.halfRate.rate} req/s, open loop):`,
    table(report.halfRate.scenarios),
    `added p99 over direct: ${report.halfRate.addedP99Ms} ms`,
    '',
    'What an Idempotency-Key costs a create (with the header − without):',
    idempotencyCostText(report.idempotency),
    '',
    'What tracing costs a served request (OTLP export, 10 % of traces kept; traced − tracing off):',
    differenceText(report.tracing),
    '',
    ...(report.baseline ? [`This build against --baseline${report.baselineNodeOptions ? ` run with ${report.baselineNodeOptions.join(' ')}` : ''} (GET list, gateway on Redis; this − baseline):`, differenceText(report.baseline), ''] : []),
    ...(report.baselineRefused ? ['The same, refused (429):', differenceText(report.baselineRefused), ''] : []),
    `${TARGETS_HEADING[report.verdict]}, gateways and hops on Node ${report.frontNode.version}:`,
    checksText(report.checks, report.verdict !== 'refused'),
    ...(report.noVerdictBecause ? ['', `NO VERDICT: ${report.noVerdictBecause}`] : []),
    ...(report.warnings.length > 0 ? ['', 'Warnings:', ...report.warnings.map((w) => `  ${w}`)] : []),
    '',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

async function main(): Promise<void> {
  if (process.argv.includes('--help')) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const options = parseOptions(process.argv.slice(2));
  killChildrenOnExit();
  if (options.mode === 'soak') {
    process.exitCode = (await runSoak(options)) ? 0 : 1;
    return;
  }
  if (options.mode === 'profile') {
    await runProfiles(options);
    return;
  }
  // The bench's own Node first (its results are `latest.json`), then BENCH_NODE's (`latest-node24.json`, …).
  const fronts = [{ path: process.execPath, version: process.version }, ...(options.benchNode ? [frontNodeAt(options.benchNode)] : [])];
  const reports: BenchReport[] = [];
  for (const [i, front] of fronts.entries()) {
    const report = await runBench(options, front);
    const suffix = i === 0 ? '' : `-node${front.version.replace(/^v(\d+).*/, '$1')}`;
    const file = writeResults(options.outDir, `bench${suffix}`, `latest${suffix}.json`, report);
    writeFileSync(path.join(options.outDir, `latest${suffix}.svg`), benchChart(report));
    print(report);
    process.stdout.write(`results: ${file}\n`);
    reports.push(report);
  }
  if (reports.length > 1) {
    const judged = (r: BenchReport) => r.verdict !== 'refused';
    process.stdout.write(`\nBoth Nodes (ratios are within each run; absolute figures drift between runs):\n${nodesText(reports.map((r) => ({ node: r.frontNode.version, scenarios: r.scenarios, checks: r.checks, judged: judged(r) })))}\n`);
  }
  const missed = reports.flatMap((r) => r.missed.map((m) => `Node ${r.frontNode.version}: ${m}`));
  if (missed.length > 0) process.stdout.write(`MISSED:\n${missed.map((m) => `  ${m}`).join('\n')}\n`);
  process.exitCode = exitStatus(reports.map((r) => r.verdict));
  if (process.exitCode === EXIT_STATUS.refused) process.stdout.write(`NO VERDICT (exit status ${EXIT_STATUS.refused}): other processes were busy while the bench measured; see "other processes" above.\n`);
}

/** The version of the Node at `file`, asked of it: a path that is not a Node fails here, before any process starts. */
function frontNodeAt(file: string): FrontNode {
  try {
    return { path: file, version: execFileSync(file, ['--version'], { encoding: 'utf8' }).trim() };
  } catch (error) {
    throw new UsageError(`BENCH_NODE=${file} is not a Node executable: ${(error as Error).message}`);
  }
}

main().catch((error: Error) => {
  process.stderr.write(error instanceof UsageError ? `${error.message}\n` : `bench failed: ${error.stack ?? error.message}\n`);
  process.exit(EXIT_STATUS.failed);
});
