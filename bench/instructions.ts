/**
 * Instructions per request of the gateway, counted by callgrind, for a copy of this build with one
 * feature taken away (`patched-build.ts`) against the build as it is (issue 29: bisecting the 429
 * path).
 *
 *   node dist/bench/instructions.js [refused|unauthorized|list] [--requests N] [--rounds N] [--keep DIR] --variant as-built --variant floor-v1 …
 *   node dist/bench/instructions.js list --variant as-built --variant express-hop --variant express-hop-redis
 *
 * A `--variant` that names one of the bench's yardstick hops (`hop`, `express-hop`,
 * `express-hop-redis`, `express-hop-raw-redis`; `list` only, they hold no keys) counts that hop in
 * place of a gateway, started as the bench starts it (Node's own flags): what the gateway's
 * features cost above the owner's stack, in instructions rather than in a CPU time the host moves.
 * `BENCH_NODE` as for the bench: the counted front runs on it, the pets-service on this Node.
 *
 * `--keep DIR` keeps each count's callgrind file there, and the gateway's map of the code V8
 * compiled (`--perf-basic-prof`: JavaScript functions by address), for `instruction-profile.ts`.
 * `--callers N` has callgrind name each function with its N callers (`--separate-callers`), so that
 * a function of V8's runtime is told apart by the JavaScript that reached it: `callgrind_annotate
 * --inclusive=yes` on the kept file, the addresses looked up in the map.
 *
 * Why instructions: CPU time per request on these machines moved by half between counts of the
 * same build minutes apart, with no process of the machine busy and no time stolen by the
 * hypervisor (other tenants share the caches and the memory bus), so a feature of 5 µs could not
 * be told from the noise (docs/performance.md). Valgrind counts the instructions the process
 * executes, its threads included: on a quiet machine the same build reads the same count within
 * 1–2 %. Not on a busy one: V8 compiles hot functions on a thread of its own, and with other
 * processes taking the cores that thread finishes later, so more of the count runs in code not yet
 * optimized (the same build read 494 k per 429 beside a CI run, 263 k alone). So a count, like a
 * bench run, is evidence only on an idle machine: each prints the other processes' CPU over it, and
 * the tool fails when any count had more than the bench's limit (`other-work.ts`). What it leaves
 * out: the kernel's work (the socket's system calls), and the cost of an instruction (a cache miss
 * counts as one). It says which part of the gateway's own code costs what; the bench says what a
 * request costs.
 *
 * Each count: a redis-server, the gateway of the variant under `valgrind --tool=callgrind`
 * (instrumented only for the count), a key over its quota (`refused`: every request a 429 the
 * replica answers from what it knows), no key at all (`unauthorized`: the 401 path, the anonymous
 * budget far out of reach) or a key with quota to spare (`list`: the bench's served request,
 * `GET /v1/pets?limit=20`, proxied to a pets-service at full speed holding 50 pets), WARMUP requests
 * uninstrumented so that V8 has compiled the path, a few instrumented then forgotten, then N
 * requests counted (4 keep-alive connections, one request at a time each).
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { GATEWAY_NODE_FLAGS } from '../gateway/src/node-flags';
import { TEST_SECRET, createAccountWithKey } from '../tools/admin-client';
import { freePort } from '../tools/ports';
import { TestRedis } from '../tools/redis-server';
import { patchedBuild } from './patched-build';
import { signServiceToken } from '../shared/src/internal-token';
import { BenchProcess, COMPILED, killChildrenOnExit } from './processes';
import { disturbanceOf, otherWorkBetween } from './other-work';
import { processSnapshot, stolenMicros } from './proc';
import { median } from './results';
import { takeOption } from './take-option';
import { gatewayEnv, hopScript, isHop, seedPets } from './system';

type Request = 'refused' | 'unauthorized' | 'list';
const PATHS: Record<Request, string> = { refused: '/v1/pets', unauthorized: '/v1/pets', list: '/v1/pets?limit=20' };
const EXPECTED: Record<Request, number> = { refused: 429, unauthorized: 401, list: 200 };
const WARMUP = 40_000;
/** Instrumented, then forgotten: valgrind translates the path's code again once instrumentation is on. */
const SETTLE = 200;
const CONNECTIONS = 4;
/** Under valgrind a process starts 20 to 50 times slower. */
const START_MS = 300_000;

/**
 * The Node that runs the counted front (`BENCH_NODE`, as for the bench: e.g. /work/node24/bin/node);
 * the pets-service beside it runs on this one, whose native modules were built for it.
 */
const FRONT_NODE = process.env.BENCH_NODE ?? process.execPath;

/** An answer later than this is a variant that hangs (a patch that broke a path), not a slow one. */
const ANSWER_MS = 60_000;

/** Sends `count` GETs to `url` over CONNECTIONS keep-alive connections, each answer read in full; the statuses seen. */
async function send(url: string, headers: Record<string, string>, count: number): Promise<Record<number, number>> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const statuses: Record<number, number> = {};
  let left = count;
  const one = () =>
    new Promise<void>((resolve, reject) => {
      http
        .get(url, { agent, headers }, (res) => {
          statuses[res.statusCode!] = (statuses[res.statusCode!] ?? 0) + 1;
          res.resume();
          res.on('end', resolve);
        })
        .setTimeout(ANSWER_MS, function (this: http.ClientRequest) {
          this.destroy(new Error(`no answer from ${url} within ${ANSWER_MS} ms`));
        })
        .on('error', reject);
    });
  const loop = async () => {
    while (left > 0) {
      left -= 1;
      await one();
    }
  };
  try {
    await Promise.all(Array.from({ length: CONNECTIONS }, loop));
  } finally {
    agent.destroy();
  }
  return statuses;
}

/**
 * V8's map of the code it compiles (`/tmp/perf-PID.map`). `--perf-basic-prof` turns V8's log on
 * too, which by default writes `isolate-…-v8.log` into the working directory (the checkout): it
 * goes to the count's own folder instead, removed with it.
 */
const perfMapFlags = (dir: string, label: string) => ['--perf-basic-prof', '--no-logfile-per-isolate', `--logfile=${path.join(dir, `${label}.v8.log`)}`];

/**
 * The instructions of V8's optimizing compiler in a dump (its background thread's task, with all
 * it called). Left out of the count: compiling is a cost paid once per function, long before a
 * process's millionth request, but valgrind slows the process 20 to 50 times, so time-driven work
 * (a timer whose change of an object's shape sends optimized code back to be compiled again)
 * falls many times more often per request than it does at full speed: up to a third of a count.
 */
function optimizingCompilation(dump: string): number {
  const text = execFileSync('callgrind_annotate', ['--inclusive=yes', '--threshold=100', dump], { encoding: 'utf8', maxBuffer: 1 << 28 });
  const line = text.split('\n').find((l) => l.includes('OptimizingCompileDispatcher::CompileTask::RunInternal()'));
  return line ? Number(/^\s*([\d,]+)/.exec(line)![1]!.replaceAll(',', '')) : 0;
}

/** Tells the gateway's callgrind to `-i on` (instrument), `-z` (zero its counts) or `-d` (dump them). */
const callgrind = (pid: number, ...command: string[]) => execFileSync('callgrind_control', [...command, String(pid)], { stdio: 'ignore' });

/** The instructions per request of one count of `script`: a gateway, or the yardstick hop `label` names (its environment is a hop's). */
async function count(script: string, request: Request, requests: number, dir: string, label: string, keep?: string, callers = 0): Promise<number> {
  const hop = isHop(label) ? hopScript(label) : undefined;
  const redis = await TestRedis.start();
  const [port, adminPort, petsPort] = [await freePort(), await freePort(), await freePort()];
  const petsData = mkdtempSync(path.join(os.tmpdir(), 'animal-store-instructions-pets-'));
  const pets =
    request === 'list'
      ? BenchProcess.start('pets', COMPILED.pets, { NODE_ENV: 'production', LOG_LEVEL: 'info', INTERNAL_JWT_SECRET: TEST_SECRET, PETS_PORT: String(petsPort), PETS_DB_PATH: path.join(petsData, 'pets.db') })
      : undefined;
  const out = path.join(dir, `${label}.callgrind`);
  const nodeFlags = hop ? [] : GATEWAY_NODE_FLAGS;
  const valgrind = ['--tool=callgrind', '--instr-atstart=no', ...(callers > 0 ? [`--separate-callers=${callers}`] : []), `--callgrind-out-file=${out}`, '--smc-check=all-non-file', FRONT_NODE, ...nodeFlags, ...(keep ? perfMapFlags(dir, label) : [])];
  if (pets) {
    await pets.ready(`http://127.0.0.1:${petsPort}/healthz`);
    await seedPets(`http://127.0.0.1:${petsPort}`, `Bearer ${signServiceToken('bench', TEST_SECRET)}`, 50);
  }
  const petsUrl = `http://127.0.0.1:${pets ? petsPort : 9}`;
  // A hop's environment as the bench gives it (database 2 of its Redis, as there).
  const env = hop
    ? { BARE_HOP_PORT: String(port), PETS_URL: petsUrl, INTERNAL_JWT_SECRET: TEST_SECRET, ...(hop.redis ? { REDIS_URL: `${redis.url}/2` } : {}) }
    : { ...gatewayEnv(petsUrl, 'info'), PORT: String(port), ADMIN_PORT: String(adminPort), REDIS_URL: redis.url };
  const gateway = BenchProcess.start(hop ? label : `gateway (${label})`, script, env, valgrind, 'valgrind');
  try {
    const url = `http://127.0.0.1:${port}`;
    if (hop) await gateway.ready(`${url}/v1/healthz`, undefined, START_MS);
    else await gateway.ready(`${url}/readyz`, async (response) => ((await response.json()) as { status?: string }).status === 'ready', START_MS);
    const headers: Record<string, string> = {};
    if (request !== 'unauthorized' && !hop) {
      const quota = request === 'refused' ? 1 : 1_000_000_000;
      const account = await createAccountWithKey(`http://127.0.0.1:${adminPort}`, { name: request, plan: 'enterprise', perMinute: quota, perDay: quota });
      headers.authorization = `Bearer ${account.key}`;
    }
    const [target, expected] = [`${url}${PATHS[request]}`, EXPECTED[request]];
    await send(target, headers, WARMUP);
    callgrind(gateway.pid, '-i', 'on');
    await send(target, headers, SETTLE);
    callgrind(gateway.pid, '-z');
    const statuses = await send(target, headers, requests);
    callgrind(gateway.pid, '-d');
    if (statuses[expected] !== requests) throw new Error(`${label}: expected ${requests} answers ${expected}, got ${JSON.stringify(statuses)}`);
    const dump = readdirSync(dir).find((name) => name.startsWith(`${label}.callgrind.`));
    if (!dump) throw new Error(`${label}: callgrind wrote no dump`);
    const totals = /^totals: (\d+)/m.exec(readFileSync(path.join(dir, dump), 'utf8'));
    if (!totals) throw new Error(`${label}: no totals in ${dump}`);
    const compiling = optimizingCompilation(path.join(dir, dump));
    if (keep) {
      const name = path.join(keep, `${label}.${Date.now()}`);
      copyFileSync(path.join(dir, dump), `${name}.callgrind`);
      copyFileSync(`/tmp/perf-${gateway.pid}.map`, `${name}.map`);
    }
    rmSync(path.join(dir, dump));
    return (Number(totals[1]) - compiling) / requests;
  } finally {
    await gateway.stop();
    await pets?.stop();
    rmSync(petsData, { recursive: true, force: true });
    await redis.stop();
    rmSync(`/tmp/perf-${gateway.pid}.map`, { force: true });
  }
}

async function main(): Promise<void> {
  killChildrenOnExit();
  const args = process.argv.slice(2);
  const take = (name: string) => takeOption(args, name);
  const requests = Number(take('--requests')[0] ?? 2_000);
  const rounds = Number(take('--rounds')[0] ?? 1);
  const variants = take('--variant');
  const keep = take('--keep')[0];
  const callers = Number(take('--callers')[0] ?? 0);
  if (keep) mkdirSync(keep, { recursive: true });
  const [request = 'refused'] = args as [Request?];
  if (!(request in PATHS)) throw new Error(`no request ${request}: ${Object.keys(PATHS).join(', ')}`);
  if (variants.length === 0) variants.push('as-built');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'animal-store-instructions-'));
  try {
    if (request !== 'list' && variants.some(isHop)) throw new Error(`a hop holds no keys: count it with list, not ${request}`);
    const scripts = new Map(variants.map((variant) => [variant, isHop(variant) ? hopScript(variant).script : patchedBuild(variant, path.join(dir, variant))]));
    const counts = new Map<string, number[]>(variants.map((variant) => [variant, []]));
    const disturbances: string[] = [];
    process.stdout.write(`${request}, ${requests} requests a count, ${rounds} rounds, the front on ${FRONT_NODE}; instructions per request (callgrind)\n`);
    for (let round = 0; round < rounds; round += 1) {
      for (const variant of variants) {
        const [machineBefore, stolenBefore, started] = [processSnapshot(), stolenMicros(), performance.now()];
        const perRequest = await count(scripts.get(variant)!, request, requests, dir, variant, keep, callers);
        const other = otherWorkBetween(machineBefore, processSnapshot(), process.pid, stolenMicros() - stolenBefore);
        const seconds = (performance.now() - started) / 1000;
        const disturbed = disturbanceOf(other, seconds);
        if (disturbed) disturbances.push(`round ${round + 1}, ${variant}: ${disturbed}`);
        counts.get(variant)!.push(perRequest);
        const note = `other processes ${(other.micros / 1e6 / seconds).toFixed(3)} cores${disturbed ? ': DISTURBED' : ''}`;
        process.stdout.write(`round ${round + 1}: ${variant.padEnd(24)} ${Math.round(perRequest).toLocaleString('en').padStart(10)}  (${note})\n`);
      }
    }
    const base = median(counts.get(variants[0]!)!);
    process.stdout.write(`median of the rounds (against ${variants[0]}):\n`);
    for (const [variant, runs] of counts) {
      const value = median(runs);
      process.stdout.write(`  ${variant.padEnd(24)} ${Math.round(value).toLocaleString('en').padStart(10)}  ${((value - base) / 1000).toFixed(1).padStart(7)} k\n`);
    }
    if (disturbances.length > 0) {
      process.stderr.write(`not evidence: other work on the machine during ${disturbances.length} count(s) (${disturbances.join('; ')}). Count again on an idle machine.\n`);
      process.exitCode = 1;
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
