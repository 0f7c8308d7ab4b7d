/**
 * One front of the bench under its load (50 connections) with a preloaded counter that a first
 * SIGUSR2 starts and a second stops, writing what it counted to a file of its own (`bench/alloc.ts`
 * with V8's sampling heap profiler, `bench/gc.ts` with the collector's pauses): the system started,
 * a warm-up of 3 s uncounted, then `requests` requests counted, the file read, everything stopped.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { waitFor } from '../tools/ports';
import { orderFor, scenario, type RequestKind } from './scenarios';
import { isHop, startBenchSystem, type TargetName } from './system';

export interface SignalledWindow {
  target: TargetName;
  request: RequestKind;
  requests: number;
  /** Node's flags for the front: the preload (`--require …`) and any other. */
  nodeFlags: string[];
  /** Where the front with this pid writes what it counted (and, once counting, `<file>.started`). */
  fileOf: (pid: number) => string;
  /** What is counted, for error messages ("the heap profile"). */
  what: string;
  /** The entry point of the other build whose gateway `gateway-baseline` runs (`patched-build.ts`). */
  baselineGateway?: string;
}

/** The counter's file as written, and the requests answered and their statuses. */
export async function countUnderLoad({ target, request, requests, nodeFlags, fileOf, what, baselineGateway }: SignalledWindow): Promise<{ text: string; requests: number; statuses: Record<string, number> }> {
  const system = await startBenchSystem({
    inProcessGateway: target === 'gateway-memory',
    tracedGateway: target === 'gateway-traced',
    hops: isHop(target) ? [target] : [],
    seedPets: 50,
    logLevel: 'info',
    nodeOptions: { [target]: nodeFlags },
    ...(baselineGateway ? { baselineGateway } : {}),
    // As `npm run bench`: BENCH_NODE runs the fronts (e.g. Node 24), this process's Node otherwise.
    ...(process.env.BENCH_NODE ? { frontNode: process.env.BENCH_NODE } : {}),
  });
  try {
    const pid = system.pids[target as keyof typeof system.pids];
    if (pid === undefined) throw new Error(`no front named ${target}`);
    const file = fileOf(pid);
    const s = scenario(target, request);
    await system.load.run(orderFor(system, s, { connections: 50, seconds: 3, recordLatencies: false }));
    process.kill(pid, 'SIGUSR2');
    await waitFor(() => existsSync(`${file}.started`), 10_000, `${what} to start`);
    const outcome = await system.load.run(orderFor(system, s, { connections: 50, seconds: 0, amount: requests, recordLatencies: false }));
    process.kill(pid, 'SIGUSR2');
    await waitFor(() => existsSync(file) && readFileSync(file, 'utf8').length > 0, 30_000, what);
    const text = readFileSync(file, 'utf8');
    rmSync(file, { force: true });
    rmSync(`${file}.started`, { force: true });
    return { text, requests: outcome.requests, statuses: outcome.statuses };
  } finally {
    await system.stop();
  }
}
