import os from 'node:os';
import { createAccountWithKey } from '../tools/admin-client';
import { measure } from './measure';
import type { BenchOptions } from './options';
import { alive, memory } from './proc';
import { checksText } from './report';
import { aggregate, round, type ScenarioResult } from './results';
import { orderFor, scenario } from './scenarios';
import { startBenchSystem } from './system';
import { soakCheck, type Check } from './targets';
import { machineInfo, writeResults, type MachineInfo } from './output';

export interface SoakReport {
  kind: 'soak';
  startedAt: string;
  finishedAt: string;
  machine: MachineInfo;
  settings: { seconds: number; keys: number; connections: number; sampleSeconds: number; logLevel: string };
  result: ScenarioResult;
  /** Resident memory of each process, sampled every `sampleSeconds` from the start of the load. */
  samples: { atSeconds: number; gatewayMiB: number; petsMiB: number; redisMiB: number }[];
  /** Length of "minute 1" and of "the last minute": 60 s, or a fifth of a shorter soak. */
  windowSeconds: number;
  /** Highest gateway RSS sampled in minute 1 and in the last minute, MiB. */
  minuteOnePeakMiB: number;
  lastMinutePeakMiB: number;
  /** lastMinutePeak ÷ minuteOnePeak − 1. */
  rssGrowth: number;
  check: Check;
}

/** Accounts created at once while setting up. */
const SETUP_CONCURRENCY = 8;

/**
 * Requests spread over many distinct keys (each its own account: caches, counters and Redis keys
 * per account grow with them), GET list through the gateway in Redis mode, for `soakSeconds`;
 * the gateway's resident memory is sampled throughout. Returns whether every answer was a 200 and
 * (unless quick) the RSS target holds.
 */
export async function runSoak(options: BenchOptions): Promise<boolean> {
  const startedAt = new Date().toISOString();
  const machine = machineInfo();
  const system = await startBenchSystem({ inProcessGateway: false, hops: [], seedPets: 50, logLevel: options.logLevel, frontNode: options.benchNode });
  try {
    const gateway = system.targets['gateway-redis']!;
    process.stderr.write(`soak: creating ${options.soakKeys} accounts with a key each\n`);
    const keys: string[] = [];
    for (let i = 0; i < options.soakKeys; i += SETUP_CONCURRENCY) {
      const batch = Array.from({ length: Math.min(SETUP_CONCURRENCY, options.soakKeys - i) }, (_, j) =>
        // Pro quotas (300/min): the load spread over every key stays under them, so requests are served.
        createAccountWithKey(gateway.adminUrl!, { name: `soak ${i + j}`, plan: 'pro' }).then(({ key }) => key),
      );
      keys.push(...(await Promise.all(batch)));
    }

    const s = scenario('gateway-redis', 'list');
    const windowSeconds = Math.min(60, options.soakSeconds / 5);
    // Several samples in each window, however short the soak.
    const sampleSeconds = Math.min(options.soakSampleSeconds, windowSeconds / 3);
    const samples: SoakReport['samples'] = [];
    const started = Date.now();
    const sample = () => {
      const mib = (pid: number | undefined) => (pid !== undefined && alive(pid) ? round(memory(pid).rssKiB / 1024, 1) : 0);
      samples.push({ atSeconds: round((Date.now() - started) / 1000, 1), gatewayMiB: mib(system.pids['gateway-redis']), petsMiB: mib(system.pids.pets), redisMiB: mib(system.pids.redis) });
    };
    process.stderr.write(`soak: ${options.soakSeconds} s over ${keys.length} keys, RSS every ${round(sampleSeconds, 2)} s\n`);
    sample();
    const sampler = setInterval(sample, sampleSeconds * 1000);
    const run = await measure(system, {
      ...orderFor(system, s, { connections: options.connections, seconds: options.soakSeconds, recordLatencies: true }),
      rotateKeys: keys,
    }).finally(() => clearInterval(sampler));
    sample();

    const result = { ...aggregate(s, gateway.processes, [run]), label: `gateway (Redis) · GET list over ${keys.length} keys` };
    // RSS is a saw-tooth (it climbs until a GC, then drops): single samples compare phases of the
    // tooth, not memory. The highest sample of minute 1 against the highest of the last minute does not.
    const peakOf = (from: number, to: number) => Math.max(...samples.filter((x) => x.atSeconds > from && x.atSeconds <= to).map((x) => x.gatewayMiB));
    const minuteOnePeakMiB = peakOf(0, windowSeconds);
    const lastMinutePeakMiB = peakOf(options.soakSeconds - windowSeconds, Number.POSITIVE_INFINITY);
    const rssGrowth = round((lastMinutePeakMiB - minuteOnePeakMiB) / minuteOnePeakMiB, 3);
    const check = soakCheck(rssGrowth);
    const report: SoakReport = {
      kind: 'soak',
      startedAt,
      finishedAt: new Date().toISOString(),
      machine: { ...machine, loadAverageAfter: os.loadavg().map((n) => round(n, 2)) },
      settings: { seconds: options.soakSeconds, keys: keys.length, connections: options.connections, sampleSeconds: round(sampleSeconds, 2), logLevel: options.logLevel },
      result,
      samples,
      windowSeconds,
      minuteOnePeakMiB,
      lastMinutePeakMiB,
      rssGrowth,
      check,
    };
    const file = writeResults(options.outDir, 'soak', 'latest-soak.json', report);
    process.stdout.write(
      [
        '',
        `Soak ${startedAt}: ${result.requestsPerSecond} req/s over ${keys.length} keys for ${options.soakSeconds} s; statuses ${JSON.stringify(result.statuses)}`,
        `gateway CPU ${result.cpuMicrosPerRequest['gateway-redis']} µs/req, Redis ${result.redisCommandsPerRequest.total} commands/req, p99 ${result.latencyMs.p99} ms`,
        `gateway RSS: ${samples.map((x) => `${x.atSeconds}s ${x.gatewayMiB}`).join(', ')} MiB`,
        `highest RSS in the first ${windowSeconds} s ${minuteOnePeakMiB} MiB, in the last ${windowSeconds} s ${lastMinutePeakMiB} MiB: growth ${round(rssGrowth * 100, 1)} %`,
        checksText([check]),
        `results: ${file}`,
        '',
      ].join('\n'),
    );
    return (check.met || !options.checkTargets) && result.unexpected === 0;
  } finally {
    await system.stop();
  }
}
