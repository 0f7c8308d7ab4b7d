import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

/**
 * A fresh PostgreSQL database per test file, dropped afterwards.
 *
 * The server comes from TEST_DATABASE_URL (default: the local `postgres` superuser on
 * 127.0.0.1:5432, trust authentication, as on the project's machines and in `.ci/run`).
 * Where none is reachable, `postgresAvailable()` says why, and the caller skips with that message.
 */
export const ADMIN_DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export const HOW_TO_RUN_POSTGRES_TESTS =
  'PostgreSQL tests skipped: no server at ' +
  redact(ADMIN_DATABASE_URL) +
  '. Start one (e.g. `apt-get install postgresql`, trust authentication for 127.0.0.1) or set TEST_DATABASE_URL to a superuser URL; `.ci/run` does this itself.';

let availability: Promise<boolean> | undefined;

/** Whether a PostgreSQL server answers at ADMIN_DATABASE_URL (checked once per test file). */
export function postgresAvailable(): Promise<boolean> {
  availability ??= (async () => {
    const client = new Client({ connectionString: ADMIN_DATABASE_URL, connectionTimeoutMillis: 2_000 });
    try {
      await client.connect();
      await client.query('SELECT 1');
      return true;
    } catch {
      return false;
    } finally {
      await client.end().catch(() => undefined);
    }
  })();
  return availability;
}

/**
 * The same check, synchronously, for choosing `describe` or a skip at module load:
 *   const describePostgres = describeIfPostgres();  // logs HOW_TO_RUN_POSTGRES_TESTS when skipping
 */
export function postgresAvailableSync(): boolean {
  const probe = `const { Client } = require('pg');
    const c = new Client({ connectionString: process.argv[1], connectionTimeoutMillis: 2000 });
    c.connect().then(() => c.query('SELECT 1')).then(() => process.exit(0), () => process.exit(1));`;
  const result = spawnSync(process.execPath, ['-e', probe, ADMIN_DATABASE_URL], { cwd: __dirname, timeout: 5_000, stdio: 'ignore' });
  return result.status === 0;
}

/** `describe` when a PostgreSQL server is reachable; otherwise a skip that says how to run these tests. */
export function describeIfPostgres(): jest.Describe {
  if (postgresAvailableSync()) return describe;
  console.warn(HOW_TO_RUN_POSTGRES_TESTS);
  // Skipped for a stated reason: no PostgreSQL server on this machine (see HOW_TO_RUN_POSTGRES_TESTS).
  return describe.skip;
}

export interface TestDatabase {
  /** A connection URL to the new, empty database. */
  url: string;
  name: string;
  drop(): Promise<void>;
}

/** Creates an empty database with a unique name; `drop()` removes it (terminating leftover connections). */
export async function createTestDatabase(label = 'test'): Promise<TestDatabase> {
  const name = `animal_store_${label.replace(/[^a-z0-9_]/gi, '_').toLowerCase()}_${randomBytes(4).toString('hex')}`;
  await withAdmin((client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(ADMIN_DATABASE_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: () =>
      withAdmin(async (client) => {
        await client.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [name]);
        await client.query(`DROP DATABASE IF EXISTS ${name}`);
      }),
  };
}

async function withAdmin<T>(work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: ADMIN_DATABASE_URL, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

function redact(url: string): string {
  return url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
}
