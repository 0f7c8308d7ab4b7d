import Database from 'better-sqlite3';
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { freePort } from '../../test/helpers/ports';
import { COMPILED, ServiceProcess } from '../../test/helpers/processes';
import { SECRET, gatewayToken, tempDir } from './support';

let dir: string;
let dbPath: string;
let service: ServiceProcess | undefined;

beforeEach(() => {
  dir = tempDir();
  dbPath = path.join(dir, 'pets.db');
});
afterEach(async () => {
  await service?.stop('SIGKILL');
  service = undefined;
  rmSync(dir, { recursive: true, force: true });
});

async function startCompiledService(env: Record<string, string> = {}): Promise<{ service: ServiceProcess; base: string }> {
  const port = await freePort();
  const started = ServiceProcess.spawn(COMPILED.pets, { PETS_PORT: String(port), PETS_DB_PATH: dbPath, INTERNAL_JWT_SECRET: SECRET, ...env });
  service = started;
  const base = `http://127.0.0.1:${port}`;
  await started.ready(`${base}/healthz`);
  return { service: started, base };
}

describe('durability of acknowledged writes', () => {
  it('when the process is killed with SIGKILL right after the last 201, then every acknowledged pet is in the file', async () => {
    const { service: pets, base } = await startCompiledService();
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

    const db = new Database(dbPath);
    try {
      const stored = new Set((db.prepare('SELECT id FROM pets').all() as { id: number }[]).map((row) => row.id));
      expect(ids.filter((id) => !stored.has(id))).toEqual([]);
      expect(new Set(ids).size).toBe(total);
    } finally {
      db.close();
    }
  });

  it('when the process gets SIGTERM, then it logs its address at start, exits 0 and leaves no WAL behind', async () => {
    const { service: pets } = await startCompiledService({ LOG_LEVEL: 'info' });
    expect(pets.output).toMatch(/"msg":"pets-service listening"/);
    expect(await pets.stop('SIGTERM')).toBe(0);
    // Closing the last connection checkpoints the WAL into the main file and removes it.
    expect(existsSync(`${dbPath}-wal`)).toBe(false);
  });
});
