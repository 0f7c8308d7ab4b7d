import type { IdempotencyCost } from './idempotency-cost';
import type { TracingCost } from './tracing-cost';
import type { BenchOptions } from './options';
import type { MachineInfo } from './output';
import type { ScenarioResult } from './results';
import type { Check, Ratios } from './targets';

/** What a bench run writes (bench-results/*.json) and what the chart (`chart.ts`) reads back. */

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

export interface BenchReport {
  kind: 'bench';
  mode: 'full' | 'quick';
  startedAt: string;
  finishedAt: string;
  /** `node` is the bench's own Node (load generator, pets-service); the fronts ran on `frontNode`. */
  machine: MachineInfo;
  frontNode: FrontNode;
  settings: Pick<BenchOptions, 'rounds' | 'repeats' | 'seconds' | 'warmupSeconds' | 'connections' | 'inProcessGateway' | 'logLevel'>;
  scenarios: ScenarioResult[];
  halfRate: HalfRate;
  ratios: Ratios;
  /** What an Idempotency-Key costs a create, per target (bench/idempotency-cost.ts). */
  idempotency: IdempotencyCost[];
  /** What tracing at 10 % costs a served request (bench/tracing-cost.ts). */
  tracing?: TracingCost;
  checks: Check[];
  /** Checks missed (full mode exits with status 1 when this is not empty). */
  missed: string[];
  warnings: string[];
}

