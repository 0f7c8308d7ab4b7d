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
import path from 'node:path';
import { allocProfileFile } from './alloc-preload';
import { allocText, summariseAlloc, type HeapProfile } from './alloc-summary';
import type { RequestKind } from './scenarios';
import { countUnderLoad } from './signalled-window';
import type { TargetName } from './system';

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const count = args.indexOf('--requests');
  const requests = count >= 0 ? Number(args.splice(count, 2)[1]) : 20_000;
  const [target = 'gateway-redis', request = 'list'] = args as [TargetName?, RequestKind?];
  if (!Number.isInteger(requests) || requests < 1) throw new Error('--requests takes a whole number of requests');
  const counted = await countUnderLoad({ target, request, requests, nodeFlags: ['--require', path.join(__dirname, 'alloc-preload.js')], fileOf: allocProfileFile, what: 'the heap profile' });
  const profile = JSON.parse(counted.text) as HeapProfile;
  process.stdout.write(`${allocText(`${target} ${request} (${process.env.BENCH_NODE ?? `Node ${process.version}`}), ${counted.requests} requests ${JSON.stringify(counted.statuses)}`, summariseAlloc(profile, counted.requests))}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
