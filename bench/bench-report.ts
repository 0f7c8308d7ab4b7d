/**
 * What `npm run bench` (full and quick) writes to its results JSON: its own module so that the
 * chart, the report and the bench itself read one shape without importing one another.
 */
import type { IdempotencyCost } from './idempotency-cost';
import type { GatewayDifference, TracingCost } from './tracing-cost';
import type { BenchOptions } from './options';
import type { MachineInfo } from './output';
import type { OtherWorkFigure } from './other-work';
import type { ScenarioResult } from './results';
import type { Check, Ratios } from './targets';
import type { Verdict } from './verdict';

export interface HalfRate {
  /** Requests per second: half the gateway's (Redis mode) measured maximum on GET list. */
  rate: number;
  scenarios: ScenarioResult[];
  /** Gateway p99 − direct p99 at that rate, ms. */
  addedP99Ms: number;
}

/** The Node executable the gateways and hops ran on. */
export interface FrontNode {
  path: string;
  /** e.g. `v24.21.0`. */
  version: string;
}

/** One run of the whole interleaved comparison (`--runs`). */
export interface BenchRun {
  scenarios: ScenarioResult[];
  halfRate: HalfRate;
  ratios: Ratios;
  /** Other processes' CPU over this run's measured time. */
  otherWork: OtherWorkFigure;
}

export interface BenchReport {
  kind: 'bench';
  mode: 'full' | 'quick';
  startedAt: string;
  finishedAt: string;
  /** `node` is the bench's own Node (load generator, pets-service); the fronts ran on `frontNode`. */
  machine: MachineInfo;
  frontNode: FrontNode;
  settings: Pick<BenchOptions, 'runs' | 'rounds' | 'repeats' | 'seconds' | 'warmupSeconds' | 'connections' | 'inProcessGateway' | 'logLevel'>;
  /** Each figure the median of the runs' (counts — requests, answers, unexpected — their sum). */
  scenarios: ScenarioResult[];
  halfRate: HalfRate;
  /** Each ratio the median of the runs' ratios. */
  ratios: Ratios;
  /** What an Idempotency-Key costs a create, per target (bench/idempotency-cost.ts). */
  idempotency: IdempotencyCost[];
  /** What tracing at 10 % costs a served request (bench/tracing-cost.ts). */
  tracing?: TracingCost;
  /** This build's gateway against `--baseline`'s ('off' the baseline, 'on' this build). */
  baseline?: GatewayDifference;
  /** The same on the 429 path. */
  baselineRefused?: GatewayDifference;
  /** Node's own flags the baseline gateway ran with (`BENCH_BASELINE_NODE_OPTIONS`), if any. */
  baselineNodeOptions?: string[];
  /** Judged on the median ratios, unless the verdict is `refused`. */
  checks: Check[];
  /** Other processes' CPU over all the runs' measured time; above its limit, no verdict. */
  otherWork: OtherWorkFigure;
  verdict: Verdict;
  /** Why the verdict is `refused`. */
  noVerdictBecause?: string;
  /** Unexpected answers and, when judged, targets missed. */
  missed: string[];
  warnings: string[];
  runs: BenchRun[];
}
