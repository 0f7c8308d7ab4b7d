import { existsSync } from 'node:fs';
import path from 'node:path';
import { COMPILED_SERVICES } from '../tools/compiled';
import { ROOT } from './processes';

export type BenchMode = 'full' | 'quick' | 'soak' | 'profile';

export interface BenchOptions {
  mode: BenchMode;
  /** Quick runs prove the bench works; only full runs check the targets. */
  checkTargets: boolean;
  /** Runs of the whole interleaved comparison; the report gives the median of each figure. */
  runs: number;
  /** Rounds of every scenario in turn, in each run. */
  rounds: number;
  /** How often a run disturbed by other work on the machine is measured again. */
  repeats: number;
  /** Length of one measured run, s. */
  seconds: number;
  /** Unmeasured run of each scenario before the first round (JIT, pools, caches), s. */
  warmupSeconds: number;
  /**
   * Pause before each measured run, ms: when the load generator stops, requests it gave up on may
   * still be queued in the services (and reach Redis); without it their work counts in the next run.
   * Quick mode, with 4 connections, has little in flight.
   */
  settleMs: number;
  connections: number;
  /** Measure the gateway without Redis as well. */
  inProcessGateway: boolean;
  soakSeconds: number;
  /** Distinct API keys the soak spreads its requests over. */
  soakKeys: number;
  /** How often the soak samples resident memory, s. */
  soakSampleSeconds: number;
  outDir: string;
  /** LOG_LEVEL of the services: `info` (the default, as deployed) writes one access-log line per request. */
  logLevel: string;
  /**
   * A second Node executable (`BENCH_NODE`) for the processes in front of the pets-service (gateways
   * and hops): the full and quick benches run once on the bench's own Node, then once on this one;
   * soak and profile run on it alone.
   */
  benchNode?: string;
  /**
   * The compiled gateway of another build (`--baseline DIR`: a checkout of, say, the last main, built
   * with `npm run build`), measured on Redis beside this build's in the same interleaved rounds.
   */
  baselineGateway?: string;
  /**
   * Node's own flags for the baseline gateway only (`BENCH_BASELINE_NODE_OPTIONS`, space-separated):
   * with `--baseline` naming this very build, what a runtime setting costs or saves, alternated.
   */
  baselineNodeOptions?: string[];
}

export const USAGE = `npm run bench [-- options]

  (no option)       full bench: 3 runs of every scenario, 3 rounds of 5 s, 50 connections,
                    interleaved; the median of each figure; targets checked unless other
                    processes used more than 0.1 of a core while it measured (no verdict then)
  exit status       0 targets met; 1 a target missed or an unexpected answer; 2 the bench could
                    not run (bad option, a process that did not start); 3 no verdict: other work
                    on the machine above 0.1 core (the report names the busiest processes)
  --quick           a few seconds, small connection counts: checks that the bench works (targets
                    reported, not checked); writes under bench/results/quick/
  --soak SECONDS    only the soak: requests spread over many distinct keys, gateway RSS sampled;
                    checks RSS growth between minute 1 and the end (< 10 %)
  --profile         CPU profiles (node --cpu-prof) of the gateway (GET list, 429 path), the
                    pets-service and the bare hop under load, with summaries, in bench/results/profiles/
  --runs N          runs of the whole interleaved comparison, median reported (default 3; quick 1)
  --rounds N  --seconds S  --warmup S  --connections N  --keys N (soak)  --sample S (soak)
  --repeats N       measure a run of a scenario again when other processes took > 0.1 core
                    meanwhile, up to N times (default 3; quick 0)
  --no-in-process   leave out the gateway without Redis
  --out DIR         where results go (default bench/results)
  --baseline DIR    also measure the gateway of another build (a checkout built with npm run
                    build, e.g. the last main's) on Redis, GET list and the 429 path, in the same
                    rounds as this one's: what a change costs, alternated on one machine
  BENCH_LOG_LEVEL   the services' LOG_LEVEL (default info)
  BENCH_BASELINE_NODE_OPTIONS
                    Node's flags for the --baseline gateway only (before its script), e.g.
                    --max-semi-space-size=64 with --baseline of this very build: a runtime
                    setting measured against none, in the same rounds
  BENCH_NODE        a second Node executable for the gateways and hops (e.g. /work/node24/bin/node):
                    the bench runs once on the Node in PATH, once on it, and reports both; soak and
                    profile run the gateway on it`;

/** A mistake on the command line: told without a stack trace. */
export class UsageError extends Error {}

export function parseOptions(argv: string[], env: NodeJS.ProcessEnv = process.env): BenchOptions {
  const flags = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i]!;
    if (!arg.startsWith('--')) throw new UsageError(`unexpected argument "${arg}"\n\n${USAGE}`);
    const name = arg.slice(2);
    if (['quick', 'profile', 'no-in-process'].includes(name)) flags.set(name, true);
    else if (['soak', 'runs', 'rounds', 'repeats', 'seconds', 'warmup', 'connections', 'keys', 'sample', 'out', 'baseline'].includes(name)) {
      const value = argv[i + 1];
      if (value === undefined) throw new UsageError(`--${name} needs a value`);
      flags.set(name, value);
      i += 1;
    } else throw new UsageError(`unknown option "${arg}"\n\n${USAGE}`);
  }
  const quick = flags.has('quick');
  const mode: BenchMode = flags.has('soak') ? 'soak' : flags.has('profile') ? 'profile' : quick ? 'quick' : 'full';
  const number = (name: string, fallback: number, min: number): number => {
    const raw = flags.get(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!Number.isFinite(value) || value < min) throw new UsageError(`--${name} must be a number ≥ ${min}, got "${String(raw)}"`);
    return value;
  };
  const baseline = flags.get('baseline');
  const baselineGateway = baseline === undefined ? undefined : path.join(path.resolve(String(baseline)), path.relative(ROOT, COMPILED_SERVICES.gateway));
  if (baselineGateway !== undefined && !existsSync(baselineGateway)) throw new UsageError(`--baseline: no ${baselineGateway} (build that checkout with npm run build first)`);
  const defaultOut = path.join(ROOT, 'bench', 'results', ...(quick ? ['quick'] : []));
  return {
    mode,
    checkTargets: !quick,
    runs: Math.round(number('runs', quick ? 1 : 3, 1)),
    rounds: Math.round(number('rounds', quick ? 1 : 3, 1)),
    repeats: Math.round(number('repeats', quick ? 0 : 3, 0)),
    seconds: number('seconds', quick ? 0.5 : mode === 'profile' ? 10 : 5, 0.1),
    // V8 keeps optimising for a minute or so: with 2 s the gateway measured 10–25 % more CPU per request.
    warmupSeconds: number('warmup', quick ? 0.3 : 5, 0),
    settleMs: quick ? 100 : 500,
    connections: Math.round(number('connections', quick ? 4 : 50, 1)),
    inProcessGateway: !quick && !flags.has('no-in-process'),
    soakSeconds: number('soak', 0, 1),
    soakKeys: Math.round(number('keys', quick ? 50 : 2_000, 1)),
    soakSampleSeconds: number('sample', quick ? 0.5 : 10, 0.1),
    outDir: path.resolve(String(flags.get('out') ?? defaultOut)),
    logLevel: env.BENCH_LOG_LEVEL ?? 'info',
    ...(env.BENCH_NODE ? { benchNode: env.BENCH_NODE } : {}),
    ...(baselineGateway ? { baselineGateway } : {}),
    ...(baselineGateway && env.BENCH_BASELINE_NODE_OPTIONS ? { baselineNodeOptions: env.BENCH_BASELINE_NODE_OPTIONS.split(/\s+/).filter(Boolean) } : {}),
  };
}
