import { rmSync } from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { createLogger } from '../../shared/src/logger';
import { POSTGRES_DEFAULTS } from '../src/config';
import { openPostgresDatabase } from '../src/db/postgres/database';
import { openSqliteDatabase } from '../src/db/sqlite/database';
import { openDatabase, prepare } from '../src/db/sqlite/keep-alive';
import { createPostgresPetRepository } from '../src/pets/postgres-pet-repository';
import { createSqlitePetRepository } from '../src/pets/sqlite-pet-repository';
import { petRepositoryContract, type RepositoryHarness } from './pet-repository.contract';
import { freshSchemaUrl, tempDir, testEngines } from './support';

async function openSqlite(): Promise<RepositoryHarness> {
  const dir = tempDir();
  const file = path.join(dir, 'pets.db');
  const { db } = openSqliteDatabase(file);
  const other = openDatabase(file);
  return {
    repository: createSqlitePetRepository(db),
    removeAll: async () => {
      other.exec('DELETE FROM pets');
    },
    async holdUncommittedCreate({ name, categoryId, status }) {
      other.exec('BEGIN IMMEDIATE');
      const { id } = prepare(other, 'INSERT INTO pets (name, category_id, status) VALUES (?, ?, ?) RETURNING id').get(name, categoryId, status) as { id: number };
      return {
        id,
        commit: async () => {
          other.exec('COMMIT');
        },
      };
    },
    async close() {
      other.close();
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function openPostgres(): Promise<RepositoryHarness> {
  const url = await freshSchemaUrl();
  const { pool } = await openPostgresDatabase({ engine: 'postgres', url, ...POSTGRES_DEFAULTS, poolSize: 4 }, createLogger('test', 'silent'));
  const other = new Client({ connectionString: url });
  await other.connect();
  return {
    repository: createPostgresPetRepository(pool),
    removeAll: async () => {
      await other.query('DELETE FROM pets');
    },
    async holdUncommittedCreate(pet) {
      await other.query('BEGIN');
      // The repository's own create, on a connection whose transaction stays open.
      const { id } = await createPostgresPetRepository(other).insert(pet);
      return {
        id,
        commit: async () => {
          await other.query('COMMIT');
        },
      };
    },
    async close() {
      await other.end();
      await pool.end();
    },
  };
}

const harnesses = { sqlite: openSqlite, postgres: openPostgres };
for (const engine of testEngines()) petRepositoryContract(engine, harnesses[engine]);
