import { AnimalStoreClient } from '@animal-store/client';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { ADVISORY_LOCKS } from '../../../pets-service/src/db/postgres/advisory-locks';
import { openDatabase, prepare } from '../../../pets-service/src/db/sqlite/keep-alive';
import { waitFor } from '../../helpers/ports';
import { createTestDatabase, postgresAvailableSync, HOW_TO_RUN_POSTGRES_TESTS, type TestDatabase } from '../../helpers/postgres';
import { COMPILED, ServiceProcess, spawnOnFreePorts } from '../../helpers/processes';
import { TEST_SECRET, createAccountWithKey, startSystem, type SystemHandle } from '../../helpers/system';
import { TcpProxy } from '../../helpers/tcp-proxy';

/**
 * The client's creates through the real gateway while the pets-service behind it is killed (SIGKILL)
 * and started again in the middle of the call: exactly one pet, whatever moment the kill hits.
 * The pets-service is reached through a TCP proxy, which can lose its answer on the way.
 */

interface Store {
  /** The database settings of a pets-service on this store. */
  env: Record<string, string>;
  countNamed(name: string): Promise<number>;
  close(): Promise<void>;
}

async function sqliteStore(): Promise<Store> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'animal-store-restart-'));
  const file = path.join(dir, 'pets.db');
  let db: ReturnType<typeof openDatabase> | undefined;
  return {
    env: { PETS_DB_PATH: file },
    async countNamed(name) {
      db ??= openDatabase(file, { readonly: true });
      return (prepare(db, 'SELECT count(*) AS n FROM pets WHERE name = ?').get(name) as { n: number }).n;
    },
    async close() {
      db?.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function postgresStore(database: TestDatabase): Promise<Store & { side: Client }> {
  const side = new Client({ connectionString: database.url });
  await side.connect();
  return {
    env: { DATABASE_URL: database.url },
    side,
    countNamed: async (name) => Number((await side.query<{ n: string }>('SELECT count(*) AS n FROM pets WHERE name = $1', [name])).rows[0]?.n),
    close: () => side.end(),
  };
}

const spawnPets = async (port: number, store: Store) => {
  const child = ServiceProcess.spawn(COMPILED.pets, { PETS_PORT: String(port), INTERNAL_JWT_SECRET: TEST_SECRET, ...store.env });
  await child.ready(`http://127.0.0.1:${port}/healthz`);
  return child;
};

/** A pets-service on the store behind a proxy, and the system's gateway in front of the proxy. */
async function startBehindProxy(store: Store) {
  const { pets, port } = await spawnOnFreePorts(1, async ([port = 0]) => ({ pets: await spawnPets(port, store), port }));
  const proxy = await TcpProxy.start({ host: '127.0.0.1', port });
  const system = await startSystem({ petsUrl: `http://127.0.0.1:${proxy.port}` });
  const { key } = await createAccountWithKey(system.gateways[0]!.adminUrl, { plan: 'business' });
  // Retries enough to outlast a restart (each waits a random part of 250 ms, 500 ms, 1 s, …).
  const client = new AnimalStoreClient({ baseUrl: `${system.gateways[0]!.url}/v1`, apiKey: key, maxRetries: 10, timeoutMs: 30_000 });
  return { pets, port, proxy, system, client };
}

const engines: Array<['sqlite' | 'postgres', () => Promise<{ store: Store & { side?: Client }; drop(): Promise<void> }>]> = [
  ['sqlite', async () => ({ store: await sqliteStore(), drop: async () => undefined })],
];
if (postgresAvailableSync()) {
  engines.push([
    'postgres',
    async () => {
      const database = await createTestDatabase('restart');
      return { store: await postgresStore(database), drop: () => database.drop() };
    },
  ]);
} else {
  console.warn(HOW_TO_RUN_POSTGRES_TESTS);
}

describe.each(engines)('a create through the client while the pets-service is killed and restarted, on %s', (engine, open) => {
  let store: Store & { side?: Client };
  let drop: () => Promise<void>;
  let running: { pets: ServiceProcess; proxy: TcpProxy; system: SystemHandle } | undefined;
  let restarted: ServiceProcess | undefined;

  beforeEach(async () => {
    ({ store, drop } = await open());
  }, 30_000);
  afterEach(async () => {
    await restarted?.stop('SIGKILL');
    await running?.pets.stop('SIGKILL');
    await running?.system.stop();
    await running?.proxy.stop();
    await store?.close();
    await drop?.();
    running = undefined;
    restarted = undefined;
  }, 30_000);

  it('when the pet is committed and the process dies before its answer gets out, then the retry gets that pet back and no other is made', async () => {
    const started = await startBehindProxy(store);
    running = started;
    const name = `lost-answer-${engine}-${Date.now()}`;

    started.proxy.holdAnswers();
    const creating = started.client.createPet({ name, categoryId: 1 });
    await waitFor(async () => (await store.countNamed(name)) === 1, 10_000, 'the pet committed');
    await started.pets.stop('SIGKILL'); // the answer was written into the proxy, which drops it
    started.proxy.passAnswers();
    restarted = await spawnPets(started.port, store);

    const pet = await creating;
    expect(pet).toMatchObject({ id: expect.any(Number), name, categoryId: 1, status: 'available' });
    expect(await store.countNamed(name)).toBe(1);
  }, 60_000);

  // On SQLite the check and the create are one synchronous transaction: a kill lands before it or after its commit (the case above).
  if (engine === 'postgres') it('when the process dies inside the transaction, holding the key, then the server lets go of it and the retry creates the pet once', async () => {
    const started = await startBehindProxy(store);
    running = started;
    const side = store.side!;
    const name = `before-commit-${Date.now()}`;

    // Every create takes the id-order lock: holding it stops this one inside its transaction.
    await side.query('SELECT pg_advisory_lock($1, $2)', [...ADVISORY_LOCKS.idOrder]);
    let creating: Promise<unknown> | undefined;
    try {
      creating = started.client.createPet({ name, categoryId: 1 });
      await waitFor(async () => Number((await side.query<{ n: string }>("SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")).rows[0]?.n) > 0, 10_000, 'the create waiting inside its transaction');
      await started.pets.stop('SIGKILL');
      // The server ends the dead process's session: its transaction, and the key's lock with it, are gone.
      await waitFor(async () => Number((await side.query<{ n: string }>("SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")).rows[0]?.n) === 0, 10_000, 'the dead session ended');
    } finally {
      await side.query('SELECT pg_advisory_unlock($1, $2)', [...ADVISORY_LOCKS.idOrder]);
    }
    expect(await store.countNamed(name)).toBe(0);
    restarted = await spawnPets(started.port, store);

    expect(await creating).toMatchObject({ name });
    expect(await store.countNamed(name)).toBe(1);
  }, 60_000);
});
