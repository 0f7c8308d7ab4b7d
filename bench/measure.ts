import type { LoadOrder, LoadOutcome } from './load-protocol';
import { otherWorkBetween, type OtherWork } from './other-work';
import { alive, cpuMicros, memory, processSnapshot, stolenMicros } from './proc';
import { isJobQueueConnection } from '../gateway/src/jobs/bullmq-queues';
import { INSPECTION_CONNECTION_NAME } from '../tools/redis-server';
import type { BenchSystem, ProcessName } from './system';

/** One measured run: what the load generator saw, and what each process spent meanwhile. */
export interface RunSample extends Omit<LoadOutcome, 'latenciesMs'> {
  latenciesMs: Float64Array;
  /** CPU used by each process over the run, µs. */
  cpuMicros: Partial<Record<ProcessName, number>>;
  /** Redis commands executed during the run, by command (the bench's own INFO excluded). */
  redisCalls: Record<string, number>;
  /** Highest resident set size sampled during the run, KiB. */
  peakRssKiB: Partial<Record<ProcessName, number>>;
  /** What processes outside the bench's own tree (other engineers' tests, the system) used meanwhile. */
  otherWork: OtherWork;
}

/** The bench's own commands, not the system's. */
const OWN_REDIS_COMMANDS = new Set(['info']);
const RSS_SAMPLE_MS = 200;
/** The pause before each run (`BenchOptions.settleMs`: what it is for). */
const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** The bench's processes together below this (a tick of /proc's 10 ms in 200 ms) count as quiet. */
const QUIET_CORES = 0.05;
const QUIET_WINDOW_MS = 200;
/** Past this the run starts anyway: a process that never goes quiet is measured as it is. */
const QUIET_DEADLINE_MS = 10_000;

/**
 * Waits until the bench's own processes are quiet: a process does work after its load ends (the
 * traced gateway exports and collects its spans, a collector finishes a cycle), and a run measured
 * meanwhile pays for it in its own CPU and rate.
 */
async function waitUntilQuiet(pids: BenchSystem['pids']): Promise<void> {
  const busy = () => Object.values(cpuOfAll(pids)).reduce((sum, micros) => sum + (micros ?? 0), 0);
  const deadline = Date.now() + QUIET_DEADLINE_MS;
  let before = busy();
  while (Date.now() < deadline) {
    await settle(QUIET_WINDOW_MS);
    const now = busy();
    if ((now - before) / 1e3 / QUIET_WINDOW_MS <= QUIET_CORES) return;
    before = now;
  }
}

function cpuOfAll(pids: BenchSystem['pids']): Partial<Record<ProcessName, number>> {
  const cpu: Partial<Record<ProcessName, number>> = {};
  for (const [name, pid] of Object.entries(pids) as [ProcessName, number][]) if (alive(pid)) cpu[name] = cpuMicros(pid);
  return cpu;
}

/**
 * Runs `order` and reads each process's CPU (/proc utime+stime) and Redis's command counters just
 * before and just after it, sampling resident memory meanwhile. The interval includes the load
 * generator's connection set-up and the last in-flight answers, a few milliseconds in seconds.
 */
export async function measure(system: BenchSystem, order: LoadOrder, settleMs = 500): Promise<RunSample> {
  await settle(settleMs);
  await waitUntilQuiet(system.pids);
  const redisBefore = await system.redis.commandStats();
  const cpuBefore = cpuOfAll(system.pids);
  const machineBefore = processSnapshot();
  const stolenBefore = stolenMicros();
  const peakRssKiB: Partial<Record<ProcessName, number>> = {};
  const sampleRss = () => {
    for (const [name, pid] of Object.entries(system.pids) as [ProcessName, number][]) {
      if (!alive(pid)) continue;
      peakRssKiB[name] = Math.max(peakRssKiB[name] ?? 0, memory(pid).rssKiB);
    }
  };
  sampleRss();
  const sampler = setInterval(sampleRss, RSS_SAMPLE_MS);
  let outcome: LoadOutcome;
  try {
    outcome = await system.load.run(order);
  } finally {
    clearInterval(sampler);
  }
  const cpuAfter = cpuOfAll(system.pids);
  const machineAfter = processSnapshot();
  const stolenAfter = stolenMicros();
  sampleRss();
  const redisAfter = await system.redis.commandStats();

  const cpu: Partial<Record<ProcessName, number>> = {};
  for (const name of Object.keys(cpuAfter) as ProcessName[]) cpu[name] = (cpuAfter[name] ?? 0) - (cpuBefore[name] ?? 0);
  const otherWork = otherWorkBetween(machineBefore, machineAfter, process.pid, stolenAfter - stolenBefore);
  return { ...outcome, cpuMicros: cpu, redisCalls: commandDelta(redisBefore, redisAfter), peakRssKiB, otherWork };
}

export function commandDelta(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  const delta: Record<string, number> = {};
  for (const [command, calls] of Object.entries(after)) {
    if (OWN_REDIS_COMMANDS.has(command)) continue;
    const added = calls - (before[command] ?? 0);
    if (added > 0) delta[command] = added;
  }
  return delta;
}

export interface RedisTraffic {
  requests: number;
  /** Commands sent by clients (round trips, with no pipelining), per request, by command. */
  sentPerRequest: Record<string, number>;
  sentTotalPerRequest: number;
  /** Commands run inside Lua scripts, per request, by command. */
  inScriptsPerRequest: Record<string, number>;
}

/**
 * A run under MONITOR: how many commands each request sends Redis (not a measured run: MONITOR
 * costs Redis CPU). The gateways' job queues (BullMQ's polls and stalled-job checks, on timers of
 * their own, on connections named as theirs) and the bench's own inspection are left out: they are
 * not per request, and a poll landing in a short run read as 0.01 commands per refused request.
 */
export async function countRedisTraffic(system: BenchSystem, order: LoadOrder, settleMs = 500): Promise<RedisTraffic> {
  await settle(settleMs);
  const watch = await system.redis.watchCommands();
  const outcome = await system.load.run(order).catch(async (error: unknown) => {
    await watch.stop().catch(() => undefined);
    throw error;
  });
  const counted = (await watch.stop()).of((name) => name !== INSPECTION_CONNECTION_NAME && !isJobQueueConnection(name));
  const perRequest = (counts: Record<string, number>) =>
    Object.fromEntries(Object.entries(counts).map(([command, n]) => [command, Math.round((n / Math.max(1, outcome.requests)) * 10_000) / 10_000]));
  return {
    requests: outcome.requests,
    sentPerRequest: perRequest(counted.sent),
    sentTotalPerRequest: Math.round((Object.values(counted.sent).reduce((a, b) => a + b, 0) / Math.max(1, outcome.requests)) * 10_000) / 10_000,
    inScriptsPerRequest: perRequest(counted.inScripts),
  };
}
