import type { Express } from 'express';
import type { Logger } from '../../shared/src/logger';
import { createApp } from './app';
import { describeDatabase, type DatabaseSettings, type PetsConfig } from './config';
import type { MigrationResult } from './db/migrations';
import { openPostgresDatabase } from './db/postgres/database';
import { openSqliteDatabase } from './db/sqlite/database';
import { startRecordSweeper } from './idempotency/sweeper';
import type { PetRepository } from './pets/pet-repository';
import { createPetService } from './pets/pet-service';
import { createPostgresPetRepository } from './pets/postgres-pet-repository';
import { createSqlitePetRepository } from './pets/sqlite-pet-repository';

export interface PetsServiceDeps {
  readonly logger: Logger;
  /** The access log (default: `logger`); main.ts gives it a buffered one. */
  readonly accessLogger?: Logger;
}

export interface PetsService {
  readonly app: Express;
  /** True once a stop has begun: readiness answers 503. */
  draining: boolean;
  /** Closes the database: SQLite checkpoints its WAL into the main file; PostgreSQL's pool ends its connections. */
  close(): Promise<void>;
}

/**
 * The pets-service's composition root: database, repository, service and app. `main.ts` puts it
 * on a server; the tests call it directly. Throws when the database cannot be opened or migrated.
 */
export async function createPetsService(config: PetsConfig, { logger, accessLogger = logger }: PetsServiceDeps): Promise<PetsService> {
  const store = await openStore(config.database, logger);
  if (store.migration.applied > 0) logger.info({ database: describeDatabase(config.database), ...store.migration }, 'database migrated');
  const sweeper = startRecordSweeper(store.repository, { logger });
  const service: PetsService = {
    app: createApp({
      service: createPetService(store.repository),
      logger,
      accessLogger,
      internalTokenSecret: config.internalJwtSecret,
      publicBaseUrl: config.publicBaseUrl,
      bodyTimeoutMs: config.bodyTimeoutMs,
      lifecycle: { get draining() { return service.draining; } },
    }),
    draining: false,
    async close() {
      await sweeper.stop();
      await store.close();
    },
  };
  return service;
}

interface OpenedStore {
  readonly repository: PetRepository;
  readonly migration: MigrationResult;
  close(): Promise<void>;
}

/** The one place the engine is chosen: `DATABASE_URL` set means PostgreSQL, otherwise SQLite. */
async function openStore(database: DatabaseSettings, logger: Logger): Promise<OpenedStore> {
  if (database.engine === 'postgres') {
    const { pool, migration } = await openPostgresDatabase(database, logger);
    return { repository: createPostgresPetRepository(pool), migration, close: () => pool.end() };
  }
  const { db, migration } = openSqliteDatabase(database.file);
  return {
    repository: createSqlitePetRepository(db),
    migration,
    close: async () => {
      db.close();
    },
  };
}
