import path from 'node:path';
import { sleep, waitFor } from '../helpers/ports';
import { COMPILED, ServiceProcess, spawnOnFreePorts } from '../helpers/processes';
import { createAccountWithKey, startSystem, TEST_ADMIN_TOKEN, TEST_SECRET, type GatewayHandle, type SystemHandle } from '../helpers/system';
import { call, readsAcrossKill, readsDuring, statusCounts } from '../helpers/traffic';

/** A second pets-service on the system's own database file (SQLite in WAL mode serves several processes on one machine). */
async function startPetsReplica(system: SystemHandle, port?: number): Promise<{ process: ServiceProcess; url: string; port: number }> {
  return spawnOnFreePorts(1, async ([free = 0]) => {
    const chosen = port ?? free;
    const child = ServiceProcess.spawn(COMPILED.pets, {
      PETS_PORT: String(chosen),
      PETS_DB_PATH: path.join(system.dataDir, 'pets.db'),
      INTERNAL_JWT_SECRET: TEST_SECRET,
    });
    const url = `http://127.0.0.1:${chosen}`;
    await child.ready(`${url}/healthz`);
    return { process: child, url, port: chosen };
  });
}

/** `gateway_upstream_attempts_total` by replica and outcome. */
async function attempts(gateway: GatewayHandle): Promise<Record<string, number>> {
  const text = await (await fetch(`${gateway.adminUrl}/metrics`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } })).text();
  const counts: Record<string, number> = {};
  for (const match of text.matchAll(/^gateway_upstream_attempts_total\{replica="([^"]+)",outcome="([a-z]+)"\} (\d+)$/gm)) counts[`${match[1]} ${match[2]}`] = Number(match[3]);
  return counts;
}

async function available(gateway: GatewayHandle, replica: string): Promise<number | undefined> {
  const text = await (await fetch(`${gateway.adminUrl}/metrics`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } })).text();
  const line = text.split('\n').find((l) => l.startsWith(`gateway_upstream_replica_available{replica="${replica}"}`));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

/** Sends reads until `replica` answers one of them (passive health checking gives it requests again once it answers). */
async function untilItServesAgain(gateway: GatewayHandle, key: string, replica: string): Promise<void> {
  const before = (await attempts(gateway))[`${replica} ok`] ?? 0;
  await waitFor(
    async () => {
      await call(`${gateway.url}/v1/pets`, { key });
      return ((await attempts(gateway))[`${replica} ok`] ?? 0) > before;
    },
    20_000,
    `${replica} to get requests again`,
  );
}

describe('several pets-service replicas behind one gateway (PETS_URL list)', () => {
  let system: SystemHandle;
  let second: { process: ServiceProcess; url: string; port: number };
  let gateway: GatewayHandle;
  let key: string;

  beforeEach(async () => {
    system = await startSystem();
    second = await startPetsReplica(system);
    gateway = await system.startGateway({ PETS_URL: `${system.petsUrl},${second.url}`, ANON_PER_MINUTE: '100000' });
    ({ key } = await createAccountWithKey(gateway.adminUrl, { plan: 'enterprise', perMinute: 1_000_000, perDay: 1_000_000_000 }));
  });
  afterEach(async () => {
    await second?.process.stop();
    await system?.stop();
  });

  it('when requests come, then they are spread round robin over the replicas', async () => {
    for (let i = 0; i < 20; i++) expect((await call(`${gateway.url}/v1/pets`, { key })).status).toBe(200);
    const counts = await attempts(gateway);
    expect(counts[`${system.petsUrl} ok`]).toBe(10);
    expect(counts[`${second.url} ok`]).toBe(10);
  });

  it('when one replica is killed under load, then no client request fails, and it is left out until it answers again', async () => {
    const replies = await readsAcrossKill(`${gateway.url}/v1/pets?limit=5`, key, () => second.process.stop('SIGKILL'));
    expect(statusCounts(replies)).toEqual({ 200: replies.length });
    expect(replies.length).toBeGreaterThan(50);
    expect(await available(gateway, second.url)).toBe(0);

    // Back on the same address: passive health checking gives it requests again once it answers.
    second = await startPetsReplica(system, second.port);
    await untilItServesAgain(gateway, key, second.url);
    expect(await available(gateway, second.url)).toBe(1);
  });

  it('when one replica is frozen under load (SIGSTOP: it accepts connections, never answers), then every read gets 200 within about UPSTREAM_TRY_TIMEOUT_MS, and once it runs again it gets requests again', async () => {
    const pid = second.process.child.pid!;
    const replies = await readsDuring(`${gateway.url}/v1/pets?limit=5`, key, 4, async (replies) => {
      await waitFor(() => replies.length >= 20, 10_000, '20 answers before the freeze');
      process.kill(pid, 'SIGSTOP');
      try {
        const atFreeze = replies.length;
        // Long enough for its back-off to end at least once (0.5 s, then 1 s…): it is probed meanwhile.
        await sleep(4_000);
        await waitFor(() => replies.length >= atFreeze + 40, 10_000, '40 answers during the freeze');
      } finally {
        process.kill(pid, 'SIGCONT');
      }
    });
    expect(statusCounts(replies)).toEqual({ 200: replies.length });
    // The default UPSTREAM_TRY_TIMEOUT_MS (2 s), then the other replica; without it, 504s after 10 s.
    expect(Math.max(...replies.map((reply) => reply.ms))).toBeLessThan(4_000);
    // The frozen replica held the reads sent its way before its first timeout, then one probe per back-off.
    expect((await attempts(gateway))[`${second.url} timeout`]).toBeLessThanOrEqual(8);

    await untilItServesAgain(gateway, key, second.url);
  });

  it('when a replica refuses connections, then creates go to the other one: none fails and none is made twice', async () => {
    await second.process.stop('SIGKILL');
    const created = [];
    for (let i = 0; i < 10; i++) created.push(await call(`${gateway.url}/v1/pets`, { key, method: 'POST', body: { name: `Retry ${i}`, categoryId: 1 } }));
    expect(statusCounts(created)).toEqual({ 201: 10 });
    const listed = await call(`${gateway.url}/v1/pets?limit=100`, { key });
    const names = (listed.json as unknown as Array<{ name: string }>).map((pet) => pet.name).filter((name) => name.startsWith('Retry '));
    expect(names.sort()).toEqual(Array.from({ length: 10 }, (_, i) => `Retry ${i}`).sort());
  });
});
