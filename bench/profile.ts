import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { BenchOptions } from './options';
import { summarise, summaryText, type CpuProfile, type Window } from './profile-summary';
import { orderFor, scenario, type RequestKind } from './scenarios';
import { startBenchSystem, type ProcessName, type TargetName } from './system';

interface ProfileJob {
  /** What is being profiled, e.g. `gateway GET list`. */
  title: string;
  target: TargetName;
  request: RequestKind;
  /** The processes profiled, each to `<file>.cpuprofile`. */
  profiled: Partial<Record<ProcessName, string>>;
}

/**
 * `node --cpu-prof` writes a profile of a process's whole life when it exits, so each job starts
 * its own system with the profiled processes under `--cpu-prof`, loads one scenario, and stops it.
 * The summaries keep only the samples taken during the measured load (the profiler's clock is
 * CLOCK_MONOTONIC, as `process.hrtime`), so start-up and warm-up do not count.
 */
const JOBS: ProfileJob[] = [
  { title: 'GET /v1/pets?limit=20 through the gateway (Redis)', target: 'gateway-redis', request: 'list', profiled: { 'gateway-redis': 'gateway-list', pets: 'pets-list' } },
  { title: 'GET /v1/pets?limit=20 through the gateway (Redis) traced at 10 %', target: 'gateway-traced', request: 'list', profiled: { 'gateway-traced': 'gateway-traced-list' } },
  { title: 'GET /v1/pets?limit=20 through the gateway (in-process store)', target: 'gateway-memory', request: 'list', profiled: { 'gateway-memory': 'gateway-memory-list' } },
  { title: 'refused (429) through the gateway (Redis)', target: 'gateway-redis', request: 'refused', profiled: { 'gateway-redis': 'gateway-refused' } },
  { title: 'GET /v1/pets?limit=20 through the bare node:http hop', target: 'hop', request: 'list', profiled: { hop: 'hop-list' } },
  { title: 'GET /v1/pets?limit=20 through the bare Express+HPM hop', target: 'express-hop', request: 'list', profiled: { 'express-hop': 'express-hop-list' } },
  { title: 'GET /pets?limit=20 directly (one token for the whole run)', target: 'direct', request: 'list', profiled: { pets: 'pets-direct-list' } },
];
const NAMES: Partial<Record<ProcessName, string>> = { 'gateway-redis': 'gateway', 'gateway-traced': 'gateway traced at 10 %', 'gateway-memory': 'gateway (in-process)', pets: 'pets-service', hop: 'bare node:http hop', 'express-hop': 'bare Express+HPM hop' };

export async function runProfiles(options: BenchOptions): Promise<void> {
  const dir = path.join(options.outDir, 'profiles');
  mkdirSync(dir, { recursive: true });
  for (const job of JOBS) {
    const nodeOptions: Partial<Record<ProcessName, string[]>> = {};
    for (const [name, file] of Object.entries(job.profiled) as [ProcessName, string][]) {
      nodeOptions[name] = ['--cpu-prof', `--cpu-prof-dir=${dir}`, `--cpu-prof-name=${file}.cpuprofile`];
    }
    process.stderr.write(`profiling: ${job.title} (${options.seconds} s, ${options.connections} connections)\n`);
    const hops = job.target === 'hop' || job.target === 'express-hop' ? [job.target] : [];
    const system = await startBenchSystem({ inProcessGateway: job.target === 'gateway-memory', tracedGateway: job.target === 'gateway-traced', hops, seedPets: 50, logLevel: options.logLevel, nodeOptions, frontNode: options.benchNode });
    let window: Window;
    let requests: number;
    try {
      const s = scenario(job.target, job.request);
      await system.load.run(orderFor(system, s, { connections: options.connections, seconds: options.warmupSeconds, recordLatencies: false }));
      // Only the measured load counts: start-up (module loading, schema compilation) and warm-up are cut.
      const fromMicros = Number(process.hrtime.bigint() / 1000n);
      const outcome = await system.load.run(orderFor(system, s, { connections: options.connections, seconds: options.seconds, recordLatencies: false }));
      window = { fromMicros, toMicros: Number(process.hrtime.bigint() / 1000n) };
      requests = outcome.requests;
      process.stderr.write(`  ${Math.round(outcome.requests / outcome.seconds)} req/s under the profiler; statuses ${JSON.stringify(outcome.statuses)}\n`);
    } finally {
      // The profiles are written as the processes exit.
      await system.stop();
    }
    for (const [name, file] of Object.entries(job.profiled) as [ProcessName, string][]) {
      const profile = JSON.parse(readFileSync(path.join(dir, `${file}.cpuprofile`), 'utf8')) as CpuProfile;
      const text = summaryText(`${NAMES[name]} — ${job.title}`, summarise(profile, 25, window), requests);
      writeFileSync(path.join(dir, `${file}.txt`), text);
      process.stdout.write(`${text}\n`);
    }
  }
  process.stdout.write(`profiles and summaries: ${dir}\n`);
}
