import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { waitFor } from './ports';
import { COMPILED, ServiceProcess, spawnOnFreePorts } from './processes';
import { TestRedisCluster } from './redis-cluster';
import { TestRedis, type TestRedisOptions } from './redis-server';

export const TEST_SECRET = 'test-internal-secret-0123456789abcdef';
export const TEST_ADMIN_TOKEN = 'test-admin-token-0123456789';

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
  /** Point the gateways somewhere else than the pets-service started here. */
  petsUrl?: string;
}

/** The real system from the compiled build: one pets-service and N gateway processes. */
export async function startSystem({ redis: withRedis = false, redisCluster = false, replicas = 1, gatewayEnv = {}, petsUrl }: SystemOptions = {}): Promise<SystemHandle> {
  const redis = withRedis ? await TestRedis.start(withRedis === true ? {} : withRedis) : undefined;
  const cluster = redisCluster ? await TestRedisCluster.start() : undefined;
  const redisEnv: Record<string, string> = redis ? { REDIS_URL: redis.url } : cluster ? { REDIS_CLUSTER_NODES: cluster.seeds } : {};
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'animal-store-'));
  const { pets, ownPetsUrl } = await spawnOnFreePorts(1, async ([petsPort = 0]) => {
    const child = ServiceProcess.spawn(COMPILED.pets, {
      PETS_PORT: String(petsPort),
      PETS_DB_PATH: path.join(dataDir, 'pets.db'),
      INTERNAL_JWT_SECRET: TEST_SECRET,
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
      ...gatewayEnv,
      ...extraEnv,
    };
    const process = ServiceProcess.spawn(COMPILED.gateway, env);
    const handle = { process, port, url: `http://127.0.0.1:${port}`, adminUrl: `http://127.0.0.1:${adminPort}` };
    await process.ready(`${handle.url}/healthz`);
    await process.ready(`${handle.adminUrl}/admin/plans`);
    if (redis || cluster) {
      // A gateway that came up before its Redis connection starts limiting in process; the tests want Redis mode.
      await waitFor(async () => ((await (await fetch(`${handle.url}/readyz`)).json()) as { status: string }).status === 'ready', 5_000, 'readiness');
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

/** Calls the ops API of a gateway. */
export async function admin<T = Record<string, unknown>>(
  adminUrl: string,
  method: string,
  pathname: string,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  const response = await fetch(`${adminUrl}${pathname}`, {
    method,
    headers: {
      authorization: `Bearer ${TEST_ADMIN_TOKEN}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T };
}

/** An account and one key, through the ops API. */
export async function createAccountWithKey(
  adminUrl: string,
  account: { name?: string; plan?: string; perMinute?: number; perDay?: number } = {},
): Promise<{ accountId: string; keyId: string; key: string }> {
  const created = await admin<{ id: string }>(adminUrl, 'POST', '/admin/accounts', { name: 'test', plan: 'free', ...account });
  if (created.status !== 201) throw new Error(`account not created: ${JSON.stringify(created)}`);
  const key = await admin<{ id: string; key: string }>(adminUrl, 'POST', `/admin/accounts/${created.body.id}/keys`);
  if (key.status !== 201) throw new Error(`key not created: ${JSON.stringify(key)}`);
  return { accountId: created.body.id, keyId: key.body.id, key: key.body.key };
}
