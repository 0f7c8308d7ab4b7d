import { Client } from 'pg';
import { signInternalToken } from '../../shared/src/internal-token';
import type { Pet } from '../../shared/src/pets';
import { startPetsReplicas, type PetsReplicas } from '../helpers/pets-replicas';
import { createTestDatabase, describeIfPostgres, type TestDatabase } from '../helpers/postgres';
import { TEST_SECRET, createAccountWithKey, startSystem, type SystemHandle } from '../helpers/system';
import { call, readsAcrossKill, statusCounts } from '../helpers/traffic';

const headers = () => ({ authorization: `Bearer ${signInternalToken(TEST_SECRET, { issuer: 'gateway', subject: 'account-1' })}`, 'content-type': 'application/json' });

async function create(base: string, name: string): Promise<{ status: number; pet: Pet }> {
  const res = await fetch(`${base}/pets`, { method: 'POST', headers: headers(), body: JSON.stringify({ name, categoryId: 1 }) });
  return { status: res.status, pet: (await res.json()) as Pet };
}

/** `total` creates, `concurrency` at a time, spread over the replicas in turn. */
async function createMany(replicas: PetsReplicas, total: number, concurrency: number, label: string): Promise<{ status: number; pet: Pet }[]> {
  const results: { status: number; pet: Pet }[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        const i = next++;
        results.push(await create(replicas.replicas[i % replicas.replicas.length]!.url, `${label}-${i}`));
      }
    }),
  );
  return results;
}

/** Follows the next links from the first page to the last, each page from the next replica in turn. */
async function walk(replicas: PetsReplicas, limit: number): Promise<Pet[]> {
  const seen: Pet[] = [];
  let path: string | undefined = `/pets?limit=${limit}`;
  for (let page = 0; path !== undefined; page += 1) {
    const res: Response = await fetch(`${replicas.replicas[page % replicas.replicas.length]!.url}${path}`, { headers: headers() });
    expect(res.status).toBe(200);
    seen.push(...((await res.json()) as Pet[]));
    path = /^<(\/pets\?[^>]+)>; rel="next"$/.exec(res.headers.get('link') ?? '')?.[1];
  }
  return seen;
}

async function storedIds(database: TestDatabase): Promise<number[]> {
  const client = new Client({ connectionString: database.url });
  await client.connect();
  try {
    return (await client.query<{ id: string }>('SELECT id FROM pets ORDER BY id')).rows.map((row) => Number(row.id));
  } finally {
    await client.end();
  }
}

describeIfPostgres()('two pets-service replicas on one PostgreSQL database', () => {
  let database: TestDatabase;
  let replicas: PetsReplicas | undefined;

  beforeAll(async () => {
    database = await createTestDatabase('replicas');
  });
  afterEach(async () => {
    await replicas?.stop('SIGKILL');
    replicas = undefined;
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('when both take creates at the same time, then every pet gets its own id and each replica finds every one', async () => {
    replicas = await startPetsReplicas({ databaseUrl: database.url, count: 2 });
    const results = await createMany(replicas, 120, 16, 'unique');
    expect(results.filter((result) => result.status !== 201)).toEqual([]);
    const ids = results.map((result) => result.pet.id);
    expect(new Set(ids).size).toBe(ids.length);

    for (const replica of replicas.replicas) {
      const sample = ids.slice(0, 10);
      const found = await Promise.all(sample.map(async (id) => (await fetch(`${replica.url}/pets/${id}`, { headers: headers() })).status));
      expect(found).toEqual(sample.map(() => 200));
    }
  });

  it('when a client walks the pages across both while creates go on through both, then it sees every pet behind its cursor exactly once, in id order', async () => {
    replicas = await startPetsReplicas({ databaseUrl: database.url, count: 2 });
    await createMany(replicas, 60, 8, 'before-walk');

    const creating = createMany(replicas, 150, 8, 'during-walk');
    const walked = await walk(replicas, 7);
    const created = await creating;
    expect(created.filter((result) => result.status !== 201)).toEqual([]);

    const walkedIds = walked.map((pet) => pet.id);
    expect(walkedIds).toEqual([...new Set(walkedIds)].sort((a, b) => a - b));
    // Nothing appeared behind the cursor later: every stored pet up to the last one seen was seen.
    const last = walkedIds.at(-1)!;
    expect(walkedIds).toEqual((await storedIds(database)).filter((id) => id <= last));
  });

  it('when 200 creates through both are acknowledged and then both processes are killed with SIGKILL, then all 200 are stored', async () => {
    const pair = await startPetsReplicas({ databaseUrl: database.url, count: 2 });
    replicas = pair;
    const results = await createMany(pair, 200, 20, 'durable');
    // Both die the moment the last answer is in, before anything could tidy up.
    for (const replica of pair.replicas) replica.process.child.kill('SIGKILL');
    expect(results.filter((result) => result.status !== 201)).toEqual([]);
    for (const replica of pair.replicas) {
      await replica.process.waitForExit();
      expect(replica.process.child.signalCode).toBe('SIGKILL');
    }

    const stored = new Set(await storedIds(database));
    expect(results.map((result) => result.pet.id).filter((id) => !stored.has(id))).toEqual([]);
  });

  it('when one replica is killed under load behind a gateway, then no client request fails and creates go on through the other', async () => {
    const pair = await startPetsReplicas({ databaseUrl: database.url, count: 2 });
    replicas = pair;
    let system: SystemHandle | undefined;
    try {
      system = await startSystem({ petsUrl: pair.petsUrl, gatewayEnv: { ANON_PER_MINUTE: '100000' } });
      const gateway = system.gateways[0]!;
      const { key } = await createAccountWithKey(gateway.adminUrl, { plan: 'enterprise', perMinute: 1_000_000, perDay: 1_000_000_000 });

      // Reads only while the replica dies: a create already sent to it cannot be sent again safely
      // (the gateway re-sends only what never reached a replica, and GET/HEAD after a reset).
      const replies = await readsAcrossKill(`${gateway.url}/v1/pets?limit=5`, key, () => pair.replicas[1]!.process.stop('SIGKILL'));
      expect(statusCounts(replies)).toEqual({ 200: replies.length });
      expect(replies.length).toBeGreaterThan(50);

      const created = await Promise.all(Array.from({ length: 20 }, (_, i) => call(`${gateway.url}/v1/pets`, { key, method: 'POST', body: { name: `after-${i}`, categoryId: 1 } })));
      expect(statusCounts(created)).toEqual({ 201: 20 });
      const stored = new Set(await storedIds(database));
      expect(created.map((reply) => Number(reply.json?.id)).filter((id) => !stored.has(id))).toEqual([]);
    } finally {
      await system?.stop();
    }
  });
});
