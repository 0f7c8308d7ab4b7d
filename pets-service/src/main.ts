// First: tracing starts before the modules it instruments are loaded.
import './tracing/preload';
import { UPSTREAM_MAX_REQUEST_HEADERS } from '../../shared/src/client-errors';
import { loadOrExit } from '../../shared/src/env';
import { createDrainableServer, stopOnSignals, type ServerTimeouts } from '../../shared/src/http-server';
import { createAccessLogger, createLogger, logFormatOfStdout } from '../../shared/src/logger';
import { keepServingThroughStrayErrors } from '../../shared/src/stray-errors';
import { describeDatabase, loadPetsConfig } from './config';
import { createPetsService } from './service';

/**
 * The gateway keeps idle upstream connections for 30 s; outlasting that avoids the race in which
 * both ends close and reuse one connection at the same moment (a 502). Only the gateway and
 * internal services connect here, so a long idle time costs little.
 */
const TIMEOUTS: ServerTimeouts = { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 65_000 };

async function main(): Promise<void> {
  const config = loadOrExit(() => loadPetsConfig(process.env), 'pets-service');
  const logFormat = logFormatOfStdout(config.production);
  const logger = createLogger('pets-service', config.logLevel, logFormat);
  keepServingThroughStrayErrors(logger, 'pets-service');
  if (config.internalJwtSecretGenerated) {
    logger.warn('INTERNAL_JWT_SECRET is not set: using the generated development secret shared with the local gateway');
  }

  const database = describeDatabase(config.database);
  let pets: Awaited<ReturnType<typeof createPetsService>>;
  try {
    pets = await createPetsService(config, { logger, accessLogger: createAccessLogger('pets-service', config.logLevel, logFormat) });
  } catch (error) {
    logger.fatal({ err: error, database }, 'pets-service cannot open its database');
    process.exit(1);
  }

  // The gateway's own headers ride on top of a client's 100: the limit leaves room for them.
  const server = createDrainableServer(pets.app, TIMEOUTS, pets, { maxRequestHeaders: UPSTREAM_MAX_REQUEST_HEADERS });
  try {
    await server.listen(config.port, config.host);
  } catch (error) {
    logger.fatal({ err: error }, 'pets-service cannot listen');
    await pets.close();
    process.exit(1);
  }
  const address = server.server.address();
  logger.info({ address, database }, 'pets-service listening');

  stopOnSignals({
    name: 'pets-service',
    logger,
    servers: [server],
    markDraining: () => {
      pets.draining = true;
    },
    release: () => pets.close(),
  });
}

void main();
