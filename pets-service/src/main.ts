import { answerUnparseableRequests } from '../../shared/src/client-errors';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadOrExit } from '../../shared/src/env';
import { createLogger } from '../../shared/src/logger';
import { createApp } from './app';
import { loadPetsConfig } from './config';
import { openDatabase } from './db/database';
import { createPetRepository } from './pets/pet-repository';
import { createPetService } from './pets/pet-service';

/** How long in-flight requests get to finish on shutdown before their connections are cut. */
const SHUTDOWN_GRACE_MS = 5_000;

function main(): void {
  const config = loadOrExit(() => loadPetsConfig(process.env), 'pets-service');
  const logger = createLogger('pets-service', config.logLevel);
  if (config.internalJwtSecretGenerated) {
    logger.warn('INTERNAL_JWT_SECRET is not set: using the generated development secret shared with the local gateway');
  }

  let opened: ReturnType<typeof openDatabase>;
  try {
    opened = openDatabase(config.dbPath);
  } catch (error) {
    logger.fatal({ err: error, file: config.dbPath }, 'pets-service cannot open its database');
    process.exit(1);
  }
  const { db, migration } = opened;
  if (migration.applied > 0) logger.info({ file: config.dbPath, ...migration }, 'database migrated');

  const app = createApp({
    service: createPetService(createPetRepository(db)),
    logger,
    internalTokenSecret: config.internalJwtSecret,
  });
  const server = createServer(app);
  answerUnparseableRequests(server);
  // The gateway keeps connections open for reuse (closing idle ones after 30 s); outlasting it
  // avoids the race where both ends close and reuse one connection at the same moment (a 502).
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;

  server.on('error', (error) => {
    logger.fatal({ err: error }, 'pets-service cannot listen');
    db.close();
    process.exit(1);
  });
  server.listen(config.port, config.host, () => {
    const { address, port } = server.address() as AddressInfo;
    logger.info({ address, port, database: config.dbPath }, 'pets-service listening');
  });

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'pets-service stopping');
    const cutOff = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
    cutOff.unref();
    server.close(() => {
      // Closing checkpoints the WAL into the main file, so a clean stop leaves one file behind.
      db.close();
      process.exit(0);
    });
    server.closeIdleConnections();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main();
