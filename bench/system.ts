import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { signServiceToken } from '../shared/src/internal-token';
import { freePort } from '../tools/ports';
import { OtlpReceiver } from '../tools/otlp-receiver';
import { TestRedis } from '../tools/redis-server';
import { TEST_ADMIN_TOKEN, TEST_SECRET, createAccountWithKey } from '../tools/admin-client';
import { LoadGenerator } from './load-protocol';
import { BenchProcess, COMPILED } from './processes';
import { GATEWAY_NODE_FLAGS } from '../gateway/src/node-flags';

/** Where a scenario sends its requests. */
export type TargetName = 'direct' | HopName | 'gateway-redis' | 'gateway-memory' | 'gateway-traced' | 'gateway-baseline';
/**
 * The yardsticks: a bare `node:http` hop (`bare-hop.ts`), a bare Express + http-proxy-middleware hop
 * (`express-hop.ts`), and the same with the limiter's one Redis round trip per request
 * (`express-hop-redis.ts` on ioredis, `express-hop-raw-redis.ts` on a bare socket).
 */
export type HopName = 'hop' | 'express-hop' | 'express-hop-redis' | 'express-hop-raw-redis';
/** Every process whose CPU and memory the bench reads. */
export type ProcessName = 'pets' | HopName | 'gateway-redis' | 'gateway-memory' | 'gateway-traced' | 'gateway-baseline' | 'redis' | 'load';

/** Each hop's script, and whether it meets Redis on every request (database 2 of the bench's Redis: its counters never meet a gateway's). */
const HOPS: Record<HopName, { script: string; redis: boolean }> = {
  hop: { script: COMPILED.bareHop, redis: false },
  'express-hop': { script: COMPILED.expressHop, redis: false },
  'express-hop-redis': { script: COMPILED.expressHopRedis, redis: true },
  'express-hop-raw-redis': { script: COMPILED.expressHopRawRedis, redis: true },
};

/** A yardstick hop's script, and whether it meets Redis on every request. */
export const hopScript = (name: HopName): { script: string; redis: boolean } => HOPS[name];

/** Whether a target is one of the yardstick hops. */
export function isHop(name: string): name is HopName {
  return name in HOPS;
}

export const TARGET_LABELS: Record<TargetName, string> = {
  direct: 'direct',
  hop: 'bare node:http hop',
  'express-hop': 'bare Express+HPM hop',
  'express-hop-redis': 'Express+HPM hop + Redis round trip',
  'express-hop-raw-redis': 'Express+HPM hop + bare-socket round trip',
  'gateway-redis': 'gateway (Redis)',
  'gateway-memory': 'gateway (in-process)',
  'gateway-traced': 'gateway (Redis), traced 10 %',
  'gateway-baseline': 'gateway (Redis) of --baseline',
};

export interface Target {
  name: TargetName;
  /** Prefix of the pets collection on this target: `/pets` directly, `/v1/pets` through a hop. */
  petsUrl: string;
  /** The processes a request to this target passes through (the load generator aside). */
  processes: ProcessName[];
  /** An API key whose quota is far above any load (the gateways only). */
  servedKey?: string;
  /** An API key already over its limit: every request is refused with 429 (the gateways only). */
  refusedKey?: string;
  adminUrl?: string;
}

export interface BenchSystem {
  targets: Partial<Record<TargetName, Target>>;
  pids: Partial<Record<ProcessName, number>>;
  redis: TestRedis;
  /** The traced gateway's collector (with `tracedGateway`). */
  receiver?: OtlpReceiver;
  load: LoadGenerator;
  /** A fresh service token for direct calls (tokens live 5 minutes, a full bench longer). */
  directAuthorization(): string;
  stop(): Promise<void>;
}

export interface SystemOptions {
  /** Also start a gateway without REDIS_URL. */
  inProcessGateway: boolean;
  /** Also start a gateway on Redis with tracing on (TRACED_GATEWAY_ENV), exporting to a receiver that discards. */
  tracedGateway?: boolean;
  /**
   * Also start the gateway of another build (`--baseline`: a checkout with its own `dist/`) on
   * Redis, beside this build's, so that both are measured in the same interleaved rounds.
   */
  baselineGateway?: string;
  /** The yardstick hops to start. */
  hops: HopName[];
  /** The Node executable of the processes in front of the pets-service (gateways, hops); the bench's own by default. */
  frontNode?: string;
  /** Pets created before measuring, so the list is a full page with a next link. */
  seedPets: number;
  /** Extra NODE_OPTIONS per process (profiling). */
  nodeOptions?: Partial<Record<ProcessName, string[]>>;
  logLevel: string;
}

/**
 * The gateway's settings for the bench. Production mode, as deployed. Anonymous requests are limited
 * per IP at 60 a minute by default, which would turn the 401 scenario into a 429 one after a second;
 * the ban would turn the 429 scenario into a ban after one refusal: both are lifted far above the load
 * so that each scenario measures the path it names.
 */
export function gatewayEnv(petsUrl: string, logLevel: string): Record<string, string> {
  return {
    NODE_ENV: 'production',
    LOG_LEVEL: logLevel,
    INTERNAL_JWT_SECRET: TEST_SECRET,
    ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    PETS_URL: petsUrl,
    ANON_PER_MINUTE: '1000000',
    BAN_THRESHOLD: '1000000',
    // The ops flush (usage board, keys' last use) is background work, a few commands a second
    // whatever the load: left out so that Redis commands per request measure the request path.
    OPS_FLUSH_INTERVAL_MS: '60000',
  };
}

/**
 * Tracing as an operator would run it under load: every tenth trace kept (a caller's sampling
 * decision followed), exported over OTLP/HTTP (protobuf, the default) in the SDK's default batches.
 */
export function tracedGatewayEnv(receiverUrl: string): Record<string, string> {
  return { OTEL_EXPORTER_OTLP_ENDPOINT: receiverUrl, OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' };
}

export async function startBenchSystem(options: SystemOptions): Promise<BenchSystem> {
  const started: BenchProcess[] = [];
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'animal-store-bench-'));
  const redis = await TestRedis.start();
  // The traced gateway's collector: reads every export and throws it away, answering 200.
  const receiver = options.tracedGateway ? await OtlpReceiver.start({ keep: false }) : undefined;
  let load: LoadGenerator | undefined;
  const stop = async () => {
    load?.stop();
    await Promise.all(started.map((p) => p.stop()));
    await receiver?.stop();
    await redis.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  const launch = (name: ProcessName, script: string, env: Record<string, string>, node?: string) => {
    // The gateways start as `npm start` starts them (GATEWAY_NODE_FLAGS); the hops as plain Node.
    const nodeFlags = [...(name.startsWith('gateway') ? GATEWAY_NODE_FLAGS : []), ...(options.nodeOptions?.[name] ?? [])];
    const child = BenchProcess.start(name, script, env, nodeFlags, node);
    started.push(child);
    return child;
  };

  try {
    const petsPort = await freePort();
    const petsBase = `http://127.0.0.1:${petsPort}`;
    const pets = launch('pets', COMPILED.pets, {
      NODE_ENV: 'production',
      LOG_LEVEL: options.logLevel,
      INTERNAL_JWT_SECRET: TEST_SECRET,
      PETS_PORT: String(petsPort),
      PETS_DB_PATH: path.join(dataDir, 'pets.db'),
    });
    await pets.ready(`${petsBase}/healthz`);
    const directAuthorization = () => `Bearer ${signServiceToken('bench', TEST_SECRET)}`;
    await seedPets(petsBase, directAuthorization(), options.seedPets);

    const targets: Partial<Record<TargetName, Target>> = {
      direct: { name: 'direct', petsUrl: `${petsBase}/pets`, processes: ['pets'] },
    };
    const pids: Partial<Record<ProcessName, number>> = { pets: pets.pid, redis: redis.pid };

    // The fronts start side by side: they depend on the pets-service only.
    const startHop = async (name: HopName) => {
      const port = await freePort();
      const { script, redis: meetsRedis } = HOPS[name];
      const redisEnv: Record<string, string> = meetsRedis ? { REDIS_URL: `${redis.url}/2` } : {};
      const hop = launch(name, script, { BARE_HOP_PORT: String(port), PETS_URL: petsBase, INTERNAL_JWT_SECRET: TEST_SECRET, ...redisEnv }, options.frontNode);
      await hop.ready(`http://127.0.0.1:${port}/v1/healthz`);
      targets[name] = { name, petsUrl: `http://127.0.0.1:${port}/v1/pets`, processes: meetsRedis ? [name, 'pets', 'redis'] : [name, 'pets'] };
      pids[name] = hop.pid;
    };

    const gateways: [ProcessName & TargetName, Record<string, string>, string?][] = [['gateway-redis', { REDIS_URL: redis.url }]];
    if (options.inProcessGateway) gateways.push(['gateway-memory', {}]);
    if (receiver) gateways.push(['gateway-traced', { REDIS_URL: redis.url, ...tracedGatewayEnv(receiver.url) }]);
    // Database 1 of the same server: the other build's records never meet this build's, whatever their format.
    if (options.baselineGateway) gateways.push(['gateway-baseline', { REDIS_URL: `${redis.url}/1` }, options.baselineGateway]);
    const startGateway = async ([name, extra, script = COMPILED.gateway]: (typeof gateways)[number]) => {
      const [port, adminPort] = [await freePort(), await freePort()];
      const url = `http://127.0.0.1:${port}`;
      const adminUrl = `http://127.0.0.1:${adminPort}`;
      const gateway = launch(name, script, { ...gatewayEnv(petsBase, options.logLevel), PORT: String(port), ADMIN_PORT: String(adminPort), ...extra }, options.frontNode);
      // Redis mode must really be on Redis, not degraded to in-process counting.
      await gateway.ready(`${url}/readyz`, async (response) => ((await response.json()) as { status?: string }).status === 'ready');
      await gateway.ready(`${adminUrl}/admin/plans`);
      const served = await createAccountWithKey(adminUrl, { name: 'bench served', plan: 'enterprise', perMinute: 100_000_000, perDay: 1_000_000_000 });
      const refused = await createAccountWithKey(adminUrl, { name: 'bench refused', plan: 'enterprise', perMinute: 1, perDay: 1 });
      await useUpQuota(`${url}/v1/pets`, refused.key);
      targets[name] = {
        name,
        petsUrl: `${url}/v1/pets`,
        processes: name === 'gateway-memory' ? [name, 'pets'] : [name, 'pets', 'redis'],
        servedKey: served.key,
        refusedKey: refused.key,
        adminUrl,
      };
      pids[name] = gateway.pid;
    };
    // allSettled: on a failure, stop() must see every process that did start, the load generator too.
    const starts = await Promise.allSettled([
      LoadGenerator.start().then((generator) => (load = generator)),
      ...options.hops.map((hop) => onFreePorts(() => startHop(hop))),
      ...gateways.map((gateway) => onFreePorts(() => startGateway(gateway))),
    ]);
    const failed = starts.find((start): start is PromiseRejectedResult => start.status === 'rejected');
    if (failed) throw failed.reason;
    pids.load = load!.pid;
    return { targets, pids, redis, receiver, load: load!, directAuthorization, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * Starts a process on ports `freePort()` gave, again on new ones if another process took one in
 * between (the fronts start side by side, each asking for its own).
 */
async function onFreePorts(start: () => Promise<void>, attempts = 3): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start();
    } catch (error) {
      if (attempt >= attempts || !/EADDRINUSE/.test((error as Error).message)) throw error;
    }
  }
}

export async function seedPets(petsUrl: string, authorization: string, count: number): Promise<void> {
  for (let i = 0; i < count; i += 1) {
    const response = await fetch(`${petsUrl}/pets`, {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/json' },
      body: JSON.stringify({ name: `bench pet ${i}`, categoryId: 1 + (i % 3) }),
    });
    if (response.status !== 201) throw new Error(`seeding pets: ${response.status} ${await response.text()}`);
  }
}

/**
 * The refused key's account has a quota of 1: one accepted request, and from then on every one is a
 * 429. Asked until refused, within a generous deadline rather than a number of tries: on a loaded
 * machine a limiter call can outlast its deadline and be counted in-process meanwhile (the
 * failover's own count of the same quota), which lets a request or two more through first.
 */
async function useUpQuota(url: string, key: string): Promise<void> {
  const statuses: number[] = [];
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const response = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
    await response.arrayBuffer();
    if (response.status === 429) return;
    statuses.push(response.status);
  }
  throw new Error(`the refused key was never refused in 60 s (answers ${statuses.slice(0, 10).join(', ')}…): is its quota really 1?`);
}
