import { Client, Pool } from 'pg';
import type { Logger } from '../../../../shared/src/logger';
import type { PostgresSettings } from '../../config';
import type { MigrationResult } from '../migrations';
import { migratePostgres } from './migrations';

/**
 * How much longer than the statement timeout this process waits for an answer before giving up on
 * the connection itself. The server enforces the statement timeout; this backstop covers a server
 * or network that stopped answering altogether, which would otherwise hold a request (and a pooled
 * connection) until TCP gives up, many minutes later.
 */
export const ANSWER_MARGIN_MS = 1_000;

/** How the service names itself in `pg_stat_activity`, unless `application_name` is in the URL. */
export const APPLICATION_NAME = 'pets-service';

export interface OpenedPostgresDatabase {
  readonly pool: Pool;
  readonly migration: MigrationResult;
}

/**
 * Migrates the schema over a connection of its own (no statement timeout: see `migratePostgres`),
 * checks that the server keeps the durability promise, and opens the pool requests use.
 * Rejects when the server cannot be reached within the connect timeout, or the schema is newer
 * than this build: the process then refuses to start.
 */
export async function openPostgresDatabase(settings: PostgresSettings, logger: Logger): Promise<OpenedPostgresDatabase> {
  const migration = await withClient(settings, async (client) => {
    await warnAboutDurability(client, logger);
    return migratePostgres(client);
  });
  const pool = new Pool({
    connectionString: settings.url,
    application_name: APPLICATION_NAME,
    max: settings.poolSize,
    // pg-pool applies this both to opening a connection and to waiting for a busy pool's next free one.
    connectionTimeoutMillis: settings.connectTimeoutMs,
    // Sent at connection start-up: the server cancels a statement running longer (57014), lock waits included.
    statement_timeout: settings.statementTimeoutMs,
    query_timeout: settings.statementTimeoutMs + ANSWER_MARGIN_MS,
    // An idempotent create is a transaction of several statements holding its key's lock. Should this
    // process stall between two of them (frozen, cut off), the server ends the session after this
    // long, rolling back and letting go of the key, instead of answering its retries 409 indefinitely.
    idle_in_transaction_session_timeout: settings.statementTimeoutMs,
    // A peer that vanished without a FIN (a failover, a dropped route) is noticed while idle too.
    keepAlive: true,
  });
  // An idle connection the server ends (restart, failover, pg_terminate_backend) is reported here;
  // pg-pool has already discarded it. Unlistened, this event would end the process.
  // pg attaches the whole client (connection parameters included) to the error: log what happened, not that.
  pool.on('error', (error: Error & { code?: string }) =>
    logger.warn({ err: { type: error.name, message: error.message, code: error.code } }, 'an idle database connection failed; the pool opens a new one when needed'),
  );
  return { pool, migration };
}

async function withClient<T>(settings: PostgresSettings, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({
    connectionString: settings.url,
    application_name: `${APPLICATION_NAME} migrations`,
    connectionTimeoutMillis: settings.connectTimeoutMs,
  });
  // Errors on an idle client are emitted, not thrown; the awaited queries report them.
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * A 201 promises the pet survives a crash, as SQLite's `synchronous=FULL` does. PostgreSQL keeps that
 * promise with its defaults (`fsync=on`, `synchronous_commit=on`); a server configured otherwise can
 * lose the last acknowledged creates if it crashes. That is its operator's choice to make: say so loudly.
 */
async function warnAboutDurability(client: Client, logger: Logger): Promise<void> {
  const { rows } = await client.query<{ fsync: string; synchronous_commit: string }>(
    "SELECT current_setting('fsync') AS fsync, current_setting('synchronous_commit') AS synchronous_commit",
  );
  const settings = rows[0];
  if (settings && (settings.fsync === 'off' || settings.synchronous_commit === 'off')) {
    logger.warn(settings, 'the database acknowledges commits it has not flushed: creates acknowledged just before a database crash can be lost');
  }
}
