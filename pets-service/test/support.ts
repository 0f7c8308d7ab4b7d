import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Express } from 'express';
import { Pool } from 'pg';
import { createLogger } from '../../shared/src/logger';
import { signInternalToken, signServiceToken } from '../../shared/src/internal-token';
import type { NewPet, Pet } from '../../shared/src/pets';
import type { TcpProxy } from '../../test/helpers/tcp-proxy';
import { createTestDatabase, HOW_TO_RUN_POSTGRES_TESTS, postgresAvailableSync, type TestDatabase } from '../../test/helpers/postgres';
import { loadPetsConfig, type DatabaseSettings } from '../src/config';
import type { PetRepository } from '../src/pets/pet-repository';
import { createPostgresPetRepository } from '../src/pets/postgres-pet-repository';
import { createSqlitePetRepository } from '../src/pets/sqlite-pet-repository';
import { createPetsService } from '../src/service';
import { openDatabase, prepare } from '../src/db/sqlite/keep-alive';

export const SECRET = 'test-internal-secret-0123456789abcdef';

export function tempDir(): string {
  return mkdtempSync(path.join(os.tmpdir(), 'pets-service-test-'));
}

export type Engine = DatabaseSettings['engine'];

let engines: readonly Engine[] | undefined;

/** The engines this machine can test: SQLite always; PostgreSQL when a server answers (otherwise a warning says how to run those). */
export function testEngines(): readonly Engine[] {
  if (engines === undefined) {
    const postgres = postgresAvailableSync();
    if (!postgres) console.warn(HOW_TO_RUN_POSTGRES_TESTS);
    engines = postgres ? ['sqlite', 'postgres'] : ['sqlite'];
  }
  return engines;
}

/** The same tests once per available engine: both must behave identically. */
export function describeEachEngine(title: string, tests: (engine: Engine) => void): void {
  describe.each(testEngines())(`${title}, on %s`, tests);
}

/**
 * One PostgreSQL database per test file, made on first use and dropped after the file's last test.
 * Each test service gets a schema of its own in it (through `search_path`), so services never see
 * each other's pets and a fresh one costs a schema, not a database.
 */
let fileDatabase: Promise<TestDatabase> | undefined;
let schemas = 0;
afterAll(async () => {
  const database = await fileDatabase;
  fileDatabase = undefined;
  await database?.drop();
});

/** A URL to a new, empty schema in this file's test database. */
export async function freshSchemaUrl(): Promise<string> {
  fileDatabase ??= createTestDatabase('pets');
  const database = await fileDatabase;
  const schema = `pets_${(schemas += 1)}`;
  const admin = new Pool({ connectionString: database.url, max: 1 });
  try {
    await admin.query(`CREATE SCHEMA ${schema}`);
  } finally {
    await admin.end();
  }
  const url = new URL(database.url);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return url.toString();
}

export interface TestServiceOptions {
  engine?: Engine;
  publicBaseUrl?: string;
  /** `BODY_TIMEOUT_MS` (default: the service's). */
  bodyTimeoutMs?: number;
  /** PostgreSQL only: pool settings, and a proxy the service reaches the server through. */
  postgres?: { poolSize?: number; connectTimeoutMs?: number; statementTimeoutMs?: number; via?: TcpProxy };
}

/** The service from its composition root, on a fresh store of the chosen engine, exactly as main.ts starts it. */
export interface TestPetsService {
  readonly engine: Engine;
  readonly app: Express;
  /** What the service was given: the SQLite file or the PostgreSQL URL (schema included). */
  readonly database: DatabaseSettings;
  /** The same store, reached straight (not through a proxy), for a test's own connections. */
  readonly direct: DatabaseSettings;
  /** A valid gateway token, as the gateway would send. */
  readonly auth: string;
  /** Creates pets, in order, through a repository of its own on the same store, for tests about reading. */
  seed(pets: NewPet[]): Promise<Pet[]>;
  countPets(): Promise<number>;
  close(): Promise<void>;
}

export async function startTestService({ engine = 'sqlite', publicBaseUrl, bodyTimeoutMs, postgres = {} }: TestServiceOptions = {}): Promise<TestPetsService> {
  const env: NodeJS.ProcessEnv = { INTERNAL_JWT_SECRET: SECRET, LOG_LEVEL: 'silent', PUBLIC_BASE_URL: publicBaseUrl };
  if (bodyTimeoutMs !== undefined) env.BODY_TIMEOUT_MS = String(bodyTimeoutMs);
  let dir: string | undefined;
  let direct: DatabaseSettings;
  if (engine === 'sqlite') {
    dir = tempDir();
    env.PETS_DB_PATH = path.join(dir, 'pets.db');
    direct = { engine, file: env.PETS_DB_PATH };
  } else {
    const url = await freshSchemaUrl();
    direct = { engine, url, poolSize: 1, connectTimeoutMs: 5_000, statementTimeoutMs: 5_000 };
    env.DATABASE_URL = postgres.via ? postgres.via.urlThrough(url) : url;
    // Small by default: every test file's services share the one server's max_connections.
    env.DATABASE_POOL_SIZE = String(postgres.poolSize ?? 4);
    if (postgres.connectTimeoutMs !== undefined) env.DATABASE_CONNECT_TIMEOUT_MS = String(postgres.connectTimeoutMs);
    if (postgres.statementTimeoutMs !== undefined) env.DATABASE_STATEMENT_TIMEOUT_MS = String(postgres.statementTimeoutMs);
  }
  const config = loadPetsConfig(env);
  const service = await createPetsService(config, { logger: createLogger('pets-service-test', 'silent') });
  const side = openSideConnection(direct);
  return {
    engine,
    app: service.app,
    database: config.database,
    direct,
    auth: `Bearer ${gatewayToken()}`,
    async seed(pets) {
      const created: Pet[] = [];
      for (const pet of pets) created.push(await side.repository.insert({ status: 'available', ...pet }));
      return created;
    },
    countPets: side.countPets,
    async close() {
      try {
        await service.close();
      } finally {
        await side.close();
        if (dir) rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

export interface SideConnection {
  repository: PetRepository;
  countPets(): Promise<number>;
  close(): Promise<void>;
}

/** A second connection to the service's store (straight, not through a proxy): what another process sharing it would do. */
export function openSideConnection(database: DatabaseSettings): SideConnection {
  if (database.engine === 'sqlite') {
    const db = openDatabase(database.file);
    return {
      repository: createSqlitePetRepository(db),
      countPets: async () => (prepare(db, 'SELECT count(*) AS n FROM pets').get() as { n: number }).n,
      close: async () => {
        db.close();
      },
    };
  }
  const pool = new Pool({ connectionString: database.url, max: 1 });
  // An idle connection the server ends (the file's database dropped as the last test ends, seen in
  // a CI pair) is not a failure of this side connection: unlistened, the pool's 'error' would be.
  // The next query opens a new one.
  pool.on('error', () => undefined);
  return {
    repository: createPostgresPetRepository(pool),
    countPets: async () => Number((await pool.query<{ n: string }>('SELECT count(*) AS n FROM pets')).rows[0]?.n),
    close: () => pool.end(),
  };
}

export function gatewayToken(secret = SECRET): string {
  return signInternalToken(secret, { issuer: 'gateway', subject: 'account-1' });
}

export function serviceToken(name: string, secret = SECRET): string {
  return signServiceToken(name, secret);
}

export const PET_STATUS_CYCLE = ['available', 'pending', 'sold'] as const;

/** `count` pets whose status cycles through the three values. */
export function somePets(count: number): NewPet[] {
  return Array.from({ length: count }, (_, i) => ({
    name: `pet-${i + 1}`,
    categoryId: (i % 4) + 1,
    status: PET_STATUS_CYCLE[i % 3],
  }));
}
