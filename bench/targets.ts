import type { ScenarioResult } from './results';
import { round } from './results';
import type { ProcessName } from './system';

/**
 * The targets, on this machine, as ratios of scenarios measured side by side in one run (so that a
 * slower or busier machine moves both sides alike). Issue 15 measures the gateway against the
 * owner's stack with no feature of ours (the bare Express + http-proxy-middleware hop) and keeps
 * issue 9's Redis targets; issue 9's ratios to the bare `node:http` hop and to the pets-service
 * alone are still reported and checked.
 */
export const TARGETS = {
  /** Gateway CPU per proxied list request ÷ the bare Express + HPM hop's (issue 15). */
  maxCpuOverExpressHop: 1.25,
  /** Gateway list throughput ÷ the bare Express + HPM hop's (issue 15). */
  minThroughputOverExpressHop: 0.9,
  /** Gateway CPU per proxied list request ÷ the bare node:http hop's. */
  maxCpuOverHop: 1.5,
  /** Gateway list throughput ÷ the bare hop's. */
  minThroughputOverHop: 0.85,
  /** Gateway list throughput ÷ the pets-service's alone. */
  minThroughputOverDirect: 0.75,
  /** Gateway p99 − direct p99 at half the gateway's maximum rate, ms. */
  maxAddedP99Ms: 2,
  /** Refused (429) throughput ÷ served list throughput (issue 15 asked ≥ 2, issue 29 ≥ 3). */
  minRefusedOverServed: 3,
  /**
   * Redis commands the gateway's request connection sends per refused request (MONITOR, in the
   * count's 3,000 requests; job queues aside): 0 for a refusal the replica already knows. One per
   * refusal would read 1; the tolerance admits the background work that shares the connection (the
   * usage board's and keys' last-use flushes, once a second whatever the load: a few commands in a
   * window). Until issue 29 this read Redis's INFO commandstats, every client's commands, and
   * missed on them (0.002–0.006) while the refusals sent none.
   */
  maxRedisPerRefused: 0.005,
  /** Redis round trips per accepted request: exactly 1 (the tolerance admits a key-cache refresh, every 30 s per key). */
  redisRoundTripsPerAccepted: 1,
  redisRoundTripTolerance: 0.005,
  /** pets-service CPU per list request ≤ this share of the baseline below. */
  maxPetsCpuShareOfBaseline: 2 / 3,
  /** Gateway RSS growth between minute 1 and the end of a soak. */
  maxSoakRssGrowth: 0.1,
};

/**
 * The pets-service's CPU per list request (GET /v1/pets?limit=20 through the gateway in Redis mode)
 * before any optimisation: the issue wants it down by a third. An absolute figure belongs to one
 * machine: this is the unoptimised code (commit aaa2c1e: main at 2a4bf13 plus this bench) measured
 * in full mode on the machine the targets are checked on (bench/results/baseline-rerun.json). The
 * first baseline, 516 µs (bench/results/baseline.json), was taken on a slower machine. On another
 * machine, measure it again: `git worktree add /tmp/base aaa2c1e`, then `npm install && npm run
 * bench` there.
 */
export const PETS_CPU_PER_LIST_BASELINE = { micros: 258, measured: '2026-11-23, bench/results/baseline-rerun.json', commit: 'aaa2c1e' };

export interface Check {
  /** The issue that set the target. */
  issue: 9 | 15;
  name: string;
  value: number;
  target: string;
  met: boolean;
}

export interface Ratios {
  gatewayCpuOverExpressHop: number;
  gatewayThroughputOverExpressHop: number;
  /** What the owner's stack costs over the bare node:http hop (not a target). */
  expressHopCpuOverHop: number;
  gatewayCpuOverHop: number;
  gatewayThroughputOverHop: number;
  gatewayThroughputOverDirect: number;
  refusedOverServed: number;
  /** Commands the request connection sends to Redis per accepted GET and POST, and per refused request (MONITOR, job queues aside). */
  redisRoundTripsPerAccepted: number;
  redisRoundTripsPerCreate: number;
  redisCommandsPerRefused: number;
  petsCpuPerListViaGateway: number;
  petsCpuPerListDirect: number;
  /**
   * The Express hop with the limiter's one Redis round trip per request (`express-hop-redis.ts`), for
   * comparison only: what the round trip alone costs over the Express hop, and the gateway over it.
   */
  roundTripHop: { cpuOverExpressHop: number; throughputOverExpressHop: number; gatewayCpuOverIt: number; gatewayThroughputOverIt: number };
  /**
   * The same round trip on a bare socket (`express-hop-raw-redis.ts`), for comparison only: the
   * least the round trip could cost, and ioredis's round-trip hop over it (what a limiter
   * connection of our own could save at most).
   */
  rawRoundTripHop: { cpuOverExpressHop: number; throughputOverExpressHop: number; ioredisCpuOverIt: number };
  /** The same ratios for the in-process gateway, for comparison only (not targets). */
  inProcess?: { gatewayCpuOverHop: number; gatewayThroughputOverHop: number; gatewayThroughputOverDirect: number; refusedOverServed: number };
}

type ById = (id: string) => ScenarioResult;

export function ratiosOf(get: ById, hasInProcess: boolean): Ratios {
  const hop = get('hop/list');
  const expressHop = get('express-hop/list');
  const direct = get('direct/list');
  const redisList = get('gateway-redis/list');
  const gateway = (name: 'gateway-redis' | 'gateway-memory') => {
    const list = get(`${name}/list`);
    return {
      gatewayCpuOverHop: round((list.cpuMicrosPerRequest[name] ?? Number.NaN) / (hop.cpuMicrosPerRequest.hop ?? Number.NaN), 2),
      gatewayThroughputOverHop: round(list.requestsPerSecond / hop.requestsPerSecond, 2),
      gatewayThroughputOverDirect: round(list.requestsPerSecond / direct.requestsPerSecond, 2),
      refusedOverServed: round(get(`${name}/refused`).requestsPerSecond / list.requestsPerSecond, 2),
    };
  };
  return {
    gatewayCpuOverExpressHop: round((redisList.cpuMicrosPerRequest['gateway-redis'] ?? Number.NaN) / (expressHop.cpuMicrosPerRequest['express-hop'] ?? Number.NaN), 2),
    gatewayThroughputOverExpressHop: round(redisList.requestsPerSecond / expressHop.requestsPerSecond, 2),
    expressHopCpuOverHop: round((expressHop.cpuMicrosPerRequest['express-hop'] ?? Number.NaN) / (hop.cpuMicrosPerRequest.hop ?? Number.NaN), 2),
    ...gateway('gateway-redis'),
    redisRoundTripsPerAccepted: redisList.redisRoundTrips?.sentTotalPerRequest ?? Number.NaN,
    redisRoundTripsPerCreate: get('gateway-redis/create').redisRoundTrips?.sentTotalPerRequest ?? Number.NaN,
    redisCommandsPerRefused: get('gateway-redis/refused').redisRoundTrips?.sentTotalPerRequest ?? Number.NaN,
    petsCpuPerListViaGateway: redisList.cpuMicrosPerRequest.pets ?? Number.NaN,
    petsCpuPerListDirect: direct.cpuMicrosPerRequest.pets ?? Number.NaN,
    ...(hasInProcess ? { inProcess: gateway('gateway-memory') } : {}),
    roundTripHop: roundTripHopRatios(get('express-hop-redis/list'), expressHop, redisList),
    rawRoundTripHop: rawRoundTripHopRatios(get('express-hop-raw-redis/list'), expressHop, get('express-hop-redis/list')),
  };
}

/** A front's CPU per request (of its own process) and req/s over another's, GET list. */
function over(a: ScenarioResult, aFront: ProcessName, b: ScenarioResult, bFront: ProcessName): { cpu: number; throughput: number } {
  return {
    cpu: round((a.cpuMicrosPerRequest[aFront] ?? Number.NaN) / (b.cpuMicrosPerRequest[bFront] ?? Number.NaN), 2),
    throughput: round(a.requestsPerSecond / b.requestsPerSecond, 2),
  };
}

function roundTripHopRatios(roundTrip: ScenarioResult, expressHop: ScenarioResult, gateway: ScenarioResult): Ratios['roundTripHop'] {
  const hop = over(roundTrip, 'express-hop-redis', expressHop, 'express-hop');
  const gatewayOverIt = over(gateway, 'gateway-redis', roundTrip, 'express-hop-redis');
  return { cpuOverExpressHop: hop.cpu, throughputOverExpressHop: hop.throughput, gatewayCpuOverIt: gatewayOverIt.cpu, gatewayThroughputOverIt: gatewayOverIt.throughput };
}

function rawRoundTripHopRatios(raw: ScenarioResult, expressHop: ScenarioResult, ioredis: ScenarioResult): Ratios['rawRoundTripHop'] {
  const hop = over(raw, 'express-hop-raw-redis', expressHop, 'express-hop');
  return { cpuOverExpressHop: hop.cpu, throughputOverExpressHop: hop.throughput, ioredisCpuOverIt: over(ioredis, 'express-hop-redis', raw, 'express-hop-raw-redis').cpu };
}

export function checksOf(ratios: Ratios, addedP99Ms: number): Check[] {
  const t = TARGETS;
  const checks: Check[] = [
    {
      issue: 15,
      name: 'gateway CPU per request ÷ bare Express+HPM hop',
      value: ratios.gatewayCpuOverExpressHop,
      target: `≤ ${t.maxCpuOverExpressHop}`,
      met: ratios.gatewayCpuOverExpressHop <= t.maxCpuOverExpressHop,
    },
    {
      issue: 15,
      name: 'gateway throughput ÷ bare Express+HPM hop',
      value: ratios.gatewayThroughputOverExpressHop,
      target: `≥ ${t.minThroughputOverExpressHop}`,
      met: ratios.gatewayThroughputOverExpressHop >= t.minThroughputOverExpressHop,
    },
    { issue: 15, name: '429 throughput ÷ served throughput', value: ratios.refusedOverServed, target: `≥ ${t.minRefusedOverServed}`, met: ratios.refusedOverServed >= t.minRefusedOverServed },
    { issue: 15, name: 'Redis commands sent per refused request', value: ratios.redisCommandsPerRefused, target: '0', met: ratios.redisCommandsPerRefused <= t.maxRedisPerRefused },
    {
      issue: 15,
      name: 'Redis round trips per accepted GET',
      value: ratios.redisRoundTripsPerAccepted,
      target: '1',
      met: Math.abs(ratios.redisRoundTripsPerAccepted - t.redisRoundTripsPerAccepted) <= t.redisRoundTripTolerance,
    },
    {
      issue: 15,
      name: 'Redis round trips per accepted POST',
      value: ratios.redisRoundTripsPerCreate,
      target: '1',
      met: Math.abs(ratios.redisRoundTripsPerCreate - t.redisRoundTripsPerAccepted) <= t.redisRoundTripTolerance,
    },
    { issue: 9, name: 'gateway CPU per request ÷ bare node:http hop', value: ratios.gatewayCpuOverHop, target: `≤ ${t.maxCpuOverHop}`, met: ratios.gatewayCpuOverHop <= t.maxCpuOverHop },
    {
      issue: 9,
      name: 'gateway throughput ÷ bare node:http hop',
      value: ratios.gatewayThroughputOverHop,
      target: `≥ ${t.minThroughputOverHop}`,
      met: ratios.gatewayThroughputOverHop >= t.minThroughputOverHop,
    },
    { issue: 9, name: 'gateway throughput ÷ direct', value: ratios.gatewayThroughputOverDirect, target: `≥ ${t.minThroughputOverDirect}`, met: ratios.gatewayThroughputOverDirect >= t.minThroughputOverDirect },
    { issue: 9, name: 'added p99 at half the max rate (ms)', value: addedP99Ms, target: `≤ ${t.maxAddedP99Ms}`, met: addedP99Ms <= t.maxAddedP99Ms },
  ];
  if (PETS_CPU_PER_LIST_BASELINE.micros > 0) {
    const ceiling = round(PETS_CPU_PER_LIST_BASELINE.micros * t.maxPetsCpuShareOfBaseline, 1);
    checks.push({
      issue: 9,
      name: `pets-service CPU µs per list (baseline ${PETS_CPU_PER_LIST_BASELINE.micros})`,
      value: ratios.petsCpuPerListViaGateway,
      target: `≤ ${ceiling}`,
      met: ratios.petsCpuPerListViaGateway <= ceiling,
    });
  }
  return checks;
}

export function soakCheck(growth: number): Check {
  return { issue: 9, name: 'gateway RSS growth, minute 1 → end of soak', value: growth, target: `< ${TARGETS.maxSoakRssGrowth}`, met: growth < TARGETS.maxSoakRssGrowth };
}
