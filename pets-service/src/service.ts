import type { Express } from 'express';
import type { Logger } from '../../shared/src/logger';
import { createApp } from './app';
import type { PetsConfig } from './config';
import { openDatabase } from './db/database';
import { createPetRepository } from './pets/pet-repository';
import { createPetService } from './pets/pet-service';

export interface PetsServiceDeps {
  readonly logger: Logger;
}

export interface PetsService {
  readonly app: Express;
  /** True once a stop has begun: readiness answers 503. */
  draining: boolean;
  /** Closes the database (checkpointing SQLite's WAL into the main file). */
  close(): Promise<void>;
}

/**
 * The pets-service's composition root: database, repository, service and app. `main.ts` puts it
 * on a server; the tests call it directly. Throws when the database cannot be opened or migrated.
 */
export async function createPetsService(config: PetsConfig, { logger }: PetsServiceDeps): Promise<PetsService> {
  const { db, migration } = openDatabase(config.dbPath);
  if (migration.applied > 0) logger.info({ file: config.dbPath, ...migration }, 'database migrated');
  const service: PetsService = {
    app: createApp({
      service: createPetService(createPetRepository(db)),
      logger,
      internalTokenSecret: config.internalJwtSecret,
      publicBaseUrl: config.publicBaseUrl,
      lifecycle: { get draining() { return service.draining; } },
    }),
    draining: false,
    close: async () => {
      db.close();
    },
  };
  return service;
}
