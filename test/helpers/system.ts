import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { waitFor } from './ports';
import { COMPILED, ServiceProcess, spawnOnFreePorts } from './processes';
import { TestRedisCluster } from './redis-cluster';
import { TestRedis, type TestRedisOptions } from './redis-server';
import { TEST_ADMIN_TOKEN, TEST_SECRET } from '../../tools/admin-client';

// The secrets and the ops API client are shared with bench/ (tools/); re-exported for the tests.
export { TEST_ADMIN_TOKEN, TEST_SECRET, admin, createAccountWithKey } from '../../tools/admin-client';

export interface GatewayHandle {
  process: ServiceProcess;
  url: string;
  adminUrl: string;
  port: number;
}

export interface SystemHandle {
  petsUrl: string;
  pets: ServiceProcess;
  gateways: GatewayHandle[];
  dataDir: string;
  /** The system's own redis-server, when started with `redis`. */
  redis?: TestRedis;
  /** The system's own Redis Cluster, when started with `redisCluster: true`. */
  cluster?: TestRedisCluster;
  stop(): Promise<void>;
  startGateway(extraEnv?: Record<string, string>): Promise<GatewayHandle>;
}

export interface SystemOptions {
  /** Start a redis-server of its own (stopped with the system) and point every gateway at it; options e.g. turn AOF on. */
  redis?: boolean | TestRedisOptions;
  /** Start a three-master Redis Cluster of its own (stopped with the system) and point every gateway at it (REDIS_CLUSTER_NODES). */
  redisCluster?: boolean;
  replicas?: number;
  gatewayEnv?: Record<string, string>;
  /** Settings of the pets-service on top of the test defaults. */
  petsEnv?: Record<string, string>;
  /** Point the gateways somewhere else than the pets-service started here. */
  petsUrl?: string;
  /**
   * How long each gateway has to answer its health checks and be ready (default 15 s). A gateway
   * of several worker processes loads its code once per process: two CI suites side by side on two
   * cores took over 15 s to start one of two workers.
   */
  gatewayStartMs?: number;
  /**
   * How long the gateways' requests wait on Redis (`REDIS_TIMEOUT_MS`). `patient` (the default
   * here): 2 s, so that exact counts across replicas do not depend on how fast the machine is: with
   * the product's 250 ms a limiter call that a loaded machine (CI beside a browser test) answered
   * late went to the in-process fallback and a key lookup to 503, and a suite's exact 429s failed.
   * `product`: the product's own deadlines, for the suites that test what happens when Redis stalls.
   */
  redisDeadline?: 'patient' | 'product';
}

/** `REDIS_TIMEOUT_MS` of a `patient` system's gateways. */
const PATIENT_REDIS_TIMEOUT_MS = '2000';

/** The real system from the compiled build: one pets-service and N gateway processes. */
export async function startSystem({ redis: withRedis = false, redisCluster = false, replicas = 1, gatewayEnv = {}, petsEnv = {}, petsUrl, gatewayStartMs = 15_000, redisDeadline = 'patient' }: SystemOptions = {}): Promise<SystemHandle> {
  const redis = withRedis ? await TestRedis.start(withRedis === true ? {} : withRedis) : undefined;
  const cluster = redisCluster ? await TestRedisCluster.start() : undefined;
  const redisEnv: Record<string, string> = redis ? { REDIS_URL: redis.url } : cluster ? { REDIS_CLUSTER_NODES: cluster.seeds } : {};
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'animal-store-'));
  const { pets, ownPetsUrl } = await spawnOnFreePorts(1, async ([petsPort = 0]) => {
    const child = ServiceProcess.spawn(COMPILED.pets, {
      PETS_PORT: String(petsPort),
      PETS_DB_PATH: path.join(dataDir, 'pets.db'),
      INTERNAL_JWT_SECRET: TEST_SECRET,
      ...petsEnv,
    });
    const address = `http://127.0.0.1:${petsPort}`;
    await child.ready(`${address}/healthz`);
    return { pets: child, ownPetsUrl: address };
  });

  const gateways: GatewayHandle[] = [];
  const startGateway = (extraEnv: Record<string, string> = {}): Promise<GatewayHandle> =>
    spawnOnFreePorts(2, async ([port = 0, adminPort = 0]) => {
    const env: Record<string, string> = {
      PORT: String(port),
      ADMIN_PORT: String(adminPort),
      PETS_URL: petsUrl ?? ownPetsUrl,
      ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      INTERNAL_JWT_SECRET: TEST_SECRET,
      ...redisEnv,
      ...(redisDeadline === 'patient' ? { REDIS_TIMEOUT_MS: PATIENT_REDIS_TIMEOUT_MS } : {}),
      ...gatewayEnv,
      ...extraEnv,
    };
    const process = ServiceProcess.spawn(COMPILED.gateway, env);
    const handle = { process, port, url: `http://127.0.0.1:${port}`, adminUrl: `http://127.0.0.1:${adminPort}` };
    await process.ready(`${handle.url}/healthz`, gatewayStartMs);
    await process.ready(`${handle.adminUrl}/admin/plans`, gatewayStartMs);
    if (redis || cluster) {
      // A gateway that came up before its Redis connection starts limiting in process; the tests want Redis mode.
      // 15 s (as for the health checks above), not 5: a loaded machine (CI beside other suites) may
      // connect late; waitFor returns as soon as the gateway is ready.
      await waitFor(async () => ((await (await fetch(`${handle.url}/readyz`)).json()) as { status: string }).status === 'ready', gatewayStartMs, 'readiness');
    }
    gateways.push(handle);
    return handle;
  });
  for (let i = 0; i < replicas; i += 1) await startGateway();

  return {
    petsUrl: ownPetsUrl,
    pets,
    gateways,
    dataDir,
    redis,
    cluster,
    startGateway,
    async stop() {
      await Promise.all([...gateways.map((g) => g.process.stop()), pets.stop()]);
      await redis?.stop();
      await cluster?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
