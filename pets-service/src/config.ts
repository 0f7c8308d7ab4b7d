import { mkdirSync } from 'node:fs';
import { isIP } from 'node:net';
import path from 'node:path';
import { EnvReader, isUrlOf } from '../../shared/src/env';
import { maskUrlCredentials, shownUrlValue } from '../../shared/src/redact';
import { readSharedSettings, type SharedSettings } from '../../shared/src/settings';
const HOST_NAME = /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

/** The embedded default: one SQLite file. */
export interface SqliteSettings {
  readonly engine: 'sqlite';
  /** Absolute path of the SQLite file; its folder exists once the config is loaded. */
  readonly file: string;
}

/**
 * A PostgreSQL server that several replicas may share. The three numbers bound how long a request
 * can wait on the database (connection, then statement), well under the gateway's 10 s upstream
 * timeout, so a sick database is answered 503 by this service rather than 504 by the gateway.
 */
export interface PostgresSettings {
  readonly engine: 'postgres';
  /** `DATABASE_URL`, as given (it may hold a password: never log it, see `describeDatabase`). */
  readonly url: string;
  /** Connections this process opens at most. */
  readonly poolSize: number;
  /** How long a request waits for a connection: a free one from the pool, or a new one. */
  readonly connectTimeoutMs: number;
  /** How long the server lets one statement run, lock waits included. */
  readonly statementTimeoutMs: number;
}

export type DatabaseSettings = SqliteSettings | PostgresSettings;

export interface PetsConfig extends SharedSettings {
  readonly port: number;
  readonly host: string;
  readonly database: DatabaseSettings;
}

/** Where the pets-service listens unless PETS_HOST / PETS_PORT say otherwise (`npm start` derives PETS_URL from the same). */
export const PETS_LISTEN_DEFAULTS = { host: '127.0.0.1', port: 8082 } as const;

const SQLITE_IN_MEMORY = ':memory:';

export const POSTGRES_DEFAULTS = { poolSize: 10, connectTimeoutMs: 2_000, statementTimeoutMs: 3_000 } as const;

/** Reads and checks the whole environment once; throws a ConfigError naming every bad variable. */
export function loadPetsConfig(env: NodeJS.ProcessEnv): PetsConfig {
  const reader = new EnvReader(env);
  const port = reader.port('PETS_PORT', PETS_LISTEN_DEFAULTS.port);
  const host = reader.string('PETS_HOST') ?? PETS_LISTEN_DEFAULTS.host;
  if (isIP(host) === 0 && !HOST_NAME.test(host)) reader.problem(`PETS_HOST must be an IP address or a host name, got "${host}"`);
  const database = readDatabaseSettings(reader);
  const shared = readSharedSettings(reader);
  reader.finish();

  if (database.engine === 'sqlite') {
    // Only once everything else is valid: a refused start should leave no folder behind.
    try {
      mkdirSync(path.dirname(database.file), { recursive: true });
    } catch (error) {
      reader.problem(`PETS_DB_PATH: cannot create the folder of "${database.file}" (${(error as Error).message})`);
      reader.finish();
    }
  }

  return Object.freeze({ ...shared, port, host, database: Object.freeze(database) });
}

/** `DATABASE_URL` selects PostgreSQL; unset, the SQLite file at `PETS_DB_PATH`. */
function readDatabaseSettings(reader: EnvReader): DatabaseSettings {
  const file = reader.string('PETS_DB_PATH');
  const url = readDatabaseUrl(reader);
  const poolSize = reader.integer('DATABASE_POOL_SIZE', POSTGRES_DEFAULTS.poolSize, { min: 1, max: 1_000 });
  const connectTimeoutMs = reader.integer('DATABASE_CONNECT_TIMEOUT_MS', POSTGRES_DEFAULTS.connectTimeoutMs, { min: 100, max: 60_000 });
  const statementTimeoutMs = reader.integer('DATABASE_STATEMENT_TIMEOUT_MS', POSTGRES_DEFAULTS.statementTimeoutMs, { min: 100, max: 600_000 });
  if (url === undefined) {
    // SQLite's in-memory name: pets lost at every stop and invisible to a second process, which is no
    // place for a store that acknowledges writes. Resolved as a path, it would be a file named ":memory:".
    if (file?.trim() === SQLITE_IN_MEMORY) {
      reader.problem(`PETS_DB_PATH=":memory:" is not offered: the pets would be lost at every stop; give a file path (default data/pets.db)`);
    }
    return { engine: 'sqlite', file: path.resolve(file ?? path.join('data', 'pets.db')) };
  }
  // Both set is a deployment that believes its pets are in one place while they go to the other.
  if (file !== undefined) reader.problem('PETS_DB_PATH and DATABASE_URL are both set: the pets live in one database; unset one of them');
  return { engine: 'postgres', url, poolSize, connectTimeoutMs, statementTimeoutMs };
}

/** Like `EnvReader.url`, but a refusal never echoes the password the value may hold. */
function readDatabaseUrl(reader: EnvReader): string | undefined {
  const raw = reader.string('DATABASE_URL');
  if (raw === undefined) return undefined;
  if (!isUrlOf(raw.trim(), ['postgres:', 'postgresql:'])) {
    reader.problem(`DATABASE_URL must be a postgres:// or postgresql:// URL with a host (e.g. postgres://pets@db.internal:5432/pets), got ${shownUrlValue(raw.trim())}`);
    return undefined;
  }
  return raw.trim();
}

/** Where the pets are, for logs: the SQLite file, or the PostgreSQL URL without its password. */
export function describeDatabase(database: DatabaseSettings): string {
  if (database.engine === 'sqlite') return database.file;
  return withoutPassword(new URL(database.url));
}

function withoutPassword(url: URL): string {
  return maskUrlCredentials(url.href);
}
