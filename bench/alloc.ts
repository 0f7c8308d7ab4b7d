/**
 * What one request allocates in the front it passes (issue 29): bytes per request, freed objects
 * included, by function. Unlike CPU time this does not depend on how busy the machine is, so a cut
 * of garbage can be measured before and after on any machine.
 *
 *   node dist/bench/alloc.js [TARGET] [REQUEST] [--requests N]
 *
 * TARGET a front of the bench (`gateway-redis` by default, `express-hop`, `gateway-memory`…),
 * REQUEST one of the bench's kinds (`list` by default, `refused`…); BENCH_NODE as for the bench. The front runs under the bench's
 * load (50 connections) with `alloc-preload.ts`: a warm-up of 3 s unsampled, then N requests
 * (20,000 by default) under V8's sampling heap profiler.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { waitFor } from '../tools/ports';
import { allocProfileFile } from './alloc-preload';
import { allocText, summariseAlloc, type HeapProfile } from './alloc-summary';
import { orderFor, scenario, type RequestKind } from './scenarios';
import { isHop, startBenchSystem, type TargetName } from './system';

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const count = args.indexOf('--requests');
  const requests = count >= 0 ? Number(args.splice(count, 2)[1]) : 20_000;
  const [target = 'gateway-redis', request = 'list'] = args as [TargetName?, RequestKind?];
  if (!Number.isInteger(requests) || requests < 1) throw new Error('--requests takes a whole number of requests');
  const system = await startBenchSystem({
    inProcessGateway: target === 'gateway-memory',
    tracedGateway: target === 'gateway-traced',
    hops: isHop(target) ? [target] : [],
    seedPets: 50,
    logLevel: 'info',
    nodeOptions: { [target]: ['--require', path.join(__dirname, 'alloc-preload.js')] },
    // As `npm run bench`: BENCH_NODE runs the fronts (e.g. Node 24), this process's Node otherwise.
    ...(process.env.BENCH_NODE ? { frontNode: process.env.BENCH_NODE } : {}),
  });
  try {
    const pid = system.pids[target as keyof typeof system.pids];
    if (pid === undefined) throw new Error(`no front named ${target}`);
    const file = allocProfileFile(pid);
    const s = scenario(target, request);
    await system.load.run(orderFor(system, s, { connections: 50, seconds: 3, recordLatencies: false }));
    process.kill(pid, 'SIGUSR2');
    await waitFor(() => existsSync(`${file}.started`), 10_000, 'the heap profiler to start');
    const outcome = await system.load.run(orderFor(system, s, { connections: 50, seconds: 0, amount: requests, recordLatencies: false }));
    process.kill(pid, 'SIGUSR2');
    await waitFor(() => existsSync(file) && readFileSync(file, 'utf8').length > 0, 30_000, 'the heap profile');
    const profile = JSON.parse(readFileSync(file, 'utf8')) as HeapProfile;
    rmSync(file, { force: true });
    rmSync(`${file}.started`, { force: true });
    process.stdout.write(`${allocText(`${target} ${request} (${process.env.BENCH_NODE ?? `Node ${process.version}`}), ${outcome.requests} requests ${JSON.stringify(outcome.statuses)}`, summariseAlloc(profile, outcome.requests))}\n`);
  } finally {
    await system.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
