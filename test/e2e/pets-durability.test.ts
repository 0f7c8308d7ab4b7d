import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { freePort } from '../helpers/ports';
import { COMPILED, ServiceProcess } from '../helpers/processes';
import { SECRET, describeEachEngine, freshSchemaUrl, gatewayToken, tempDir, type Engine } from '../../pets-service/test/support';
import { openDatabase, prepare } from '../../pets-service/src/db/sqlite/keep-alive';

let dir: string;
let service: ServiceProcess | undefined;

beforeEach(() => {
  dir = tempDir();
});
afterEach(async () => {
  await service?.stop('SIGKILL');
  service = undefined;
  rmSync(dir, { recursive: true, force: true });
});

/** Where the compiled service keeps its pets, and how a test reads them back once it is dead. */
interface Store {
  env: Record<string, string>;
  storedIds(): Promise<Set<number>>;
  /** What a clean close leaves behind that an unclean one would not. */
  closedCleanly(): boolean;
}

async function storeFor(engine: Engine): Promise<Store> {
  if (engine === 'sqlite') {
    const dbPath = path.join(dir, 'pets.db');
    return {
      env: { PETS_DB_PATH: dbPath },
      async storedIds() {
        const db = openDatabase(dbPath);
        try {
          return new Set((prepare(db, 'SELECT id FROM pets').all() as { id: number }[]).map((row) => row.id));
        } finally {
          db.close();
        }
      },
      // Closing the last connection checkpoints the WAL into the main file and removes it.
      closedCleanly: () => !existsSync(`${dbPath}-wal`),
    };
  }
  const url = await freshSchemaUrl();
  const query = async (text: string) => {
    const client = new Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query(text)).rows;
    } finally {
      await client.end();
    }
  };
  return {
    env: { DATABASE_URL: url },
    storedIds: async () => new Set((await query('SELECT id FROM pets')).map((row: { id: string }) => Number(row.id))),
    // Nothing on the server side tells a pool ended from a process gone; exit code 0 (the pool's end
    // resolved within the stop's time limit) is the evidence.
    closedCleanly: () => true,
  };
}

async function startCompiledService(store: Store, env: Record<string, string> = {}): Promise<{ service: ServiceProcess; base: string }> {
  const port = await freePort();
  const started = ServiceProcess.spawn(COMPILED.pets, { PETS_PORT: String(port), INTERNAL_JWT_SECRET: SECRET, ...store.env, ...env });
  service = started;
  const base = `http://127.0.0.1:${port}`;
  await started.ready(`${base}/healthz`);
  return { service: started, base };
}

describeEachEngine('durability of acknowledged writes', (engine) => {
  it('when the process is killed with SIGKILL right after the last 201, then every acknowledged pet is stored', async () => {
    const store = await storeFor(engine);
    const { service: pets, base } = await startCompiledService(store);
    const headers = { Authorization: `Bearer ${gatewayToken()}`, 'Content-Type': 'application/json' };
    const total = 50;
    let answered = 0;
    const answers = await Promise.all(
      Array.from({ length: total }, async (_, i) => {
        const res = await fetch(`${base}/pets`, { method: 'POST', headers, body: JSON.stringify({ name: `durable-${i}`, categoryId: 1 }) });
        const body = (await res.json()) as { id: number };
        // Killed the moment the last answer is in, before anything could tidy up.
        if (++answered === total) pets.child.kill('SIGKILL');
        return { status: res.status, body };
      }),
    );
    expect(answers.filter((answer) => answer.status !== 201)).toEqual([]);
    const ids = answers.map((answer) => answer.body.id);
    expect(await pets.waitForExit()).toBeNull();
    expect(pets.child.signalCode).toBe('SIGKILL');

    const stored = await store.storedIds();
    expect(ids.filter((id) => !stored.has(id))).toEqual([]);
    expect(new Set(ids).size).toBe(total);
  });

  it('when the process gets SIGTERM, then it logs its address at start, closes its database and exits 0', async () => {
    const store = await storeFor(engine);
    const { service: pets, base } = await startCompiledService(store, { LOG_LEVEL: 'info' });
    // Some work first, so that there is a connection (PostgreSQL) or a WAL (SQLite) to close.
    await fetch(`${base}/pets`, { headers: { Authorization: `Bearer ${gatewayToken()}` } });
    expect(pets.output).toMatch(/"msg":"pets-service listening"/);
    expect(await pets.stop('SIGTERM')).toBe(0);
    expect(store.closedCleanly()).toBe(true);
  });
});
