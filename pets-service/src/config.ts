import { mkdirSync } from 'node:fs';
import { isIP } from 'node:net';
import path from 'node:path';
import { EnvReader } from '../../shared/src/env';
import { readSharedSettings, type SharedSettings } from '../../shared/src/settings';
const HOST_NAME = /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

export interface PetsConfig extends SharedSettings {
  readonly port: number;
  readonly host: string;
  /** Absolute path of the SQLite file; its folder exists once the config is loaded. */
  readonly dbPath: string;
}

/** Reads and checks the whole environment once; throws a ConfigError naming every bad variable. */
export function loadPetsConfig(env: NodeJS.ProcessEnv): PetsConfig {
  const reader = new EnvReader(env);
  const port = reader.port('PETS_PORT', 8082);
  const host = reader.string('PETS_HOST') ?? '127.0.0.1';
  if (isIP(host) === 0 && !HOST_NAME.test(host)) reader.problem(`PETS_HOST must be an IP address or a host name, got "${host}"`);
  const dbPath = path.resolve(reader.string('PETS_DB_PATH') ?? path.join('data', 'pets.db'));
  const shared = readSharedSettings(reader);
  reader.finish();

  // Only once everything else is valid: a refused start should leave no folder behind.
  try {
    mkdirSync(path.dirname(dbPath), { recursive: true });
  } catch (error) {
    reader.problem(`PETS_DB_PATH: cannot create the folder of "${dbPath}" (${(error as Error).message})`);
    reader.finish();
  }

  return Object.freeze({ ...shared, port, host, dbPath });
}
