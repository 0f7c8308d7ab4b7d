import type { ClientBase } from 'pg';
import { latestVersion, pendingMigrations, type Migration, type MigrationResult } from '../migrations';
import { ADVISORY_LOCKS } from './advisory-locks';

/**
 * Append only, like `SQLITE_MIGRATIONS`, and the same versions: version N is the same schema on both.
 * Applied versions are rows of `schema_migrations`.
 */
export const POSTGRES_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    sql: `
      -- An identity column draws from a sequence, which never goes back: an id once handed out
      -- never comes back for another pet (like SQLite's AUTOINCREMENT). GENERATED ALWAYS refuses
      -- an id given by hand, so the sequence is the only source. bigint: ids up to 2^63-1,
      -- of which this service hands out at most 2^53-1 (what JSON numbers carry exactly).
      CREATE TABLE pets (
        id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        name        text   NOT NULL,
        category_id bigint NOT NULL,
        status      text   NOT NULL
      );
      -- Serves the status-filtered pages: equality on status, then id order and id > cursor.
      CREATE INDEX pets_status_id ON pets (status, id);
    `,
  },
  {
    version: 2,
    sql: `
      -- One row per Idempotency-Key that created a pet, written in the pet's own transaction
      -- (docs/adr/0019-idempotency-records.md). The answer is kept as it was sent, so a retry gets
      -- the same bytes. created_at is the creating transaction's time on this server (one clock for
      -- every replica); a record older than 24 hours is ignored, replaced when its key comes again,
      -- and removed in batches by the sweeper (the index).
      CREATE TABLE idempotency_records (
        owner             text        NOT NULL,
        idempotency_key   text        NOT NULL,
        fingerprint       text        NOT NULL,
        created_at        timestamptz NOT NULL DEFAULT now(),
        response_status   smallint    NOT NULL,
        response_body     text        NOT NULL,
        response_location text        NOT NULL,
        PRIMARY KEY (owner, idempotency_key)
      );
      CREATE INDEX idempotency_records_created_at ON idempotency_records (created_at);
    `,
  },
];

/**
 * Brings the schema to the latest version in one transaction (PostgreSQL's DDL is transactional:
 * a failed step leaves nothing behind). Replicas starting at the same moment queue on a
 * transaction-level advisory lock: the first migrates, the others then find nothing to do.
 * The lock is released by the commit, or by the server if this process dies meanwhile.
 */
export async function migratePostgres(client: ClientBase, migrations: readonly Migration[] = POSTGRES_MIGRATIONS): Promise<MigrationResult> {
  await client.query('BEGIN');
  try {
    // A migration may legitimately run long (an index on a large table), and so may the wait
    // for another replica's: neither is a request, so the statement timeout does not apply.
    await client.query('SET LOCAL statement_timeout = 0');
    await client.query('SELECT pg_advisory_xact_lock($1, $2)', [...ADVISORY_LOCKS.migrations]);
    await client.query(`
      CREATE TABLE IF NOT EXISTS schema_migrations (
        version    integer     PRIMARY KEY,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`);
    const { rows } = await client.query<{ version: number }>('SELECT coalesce(max(version), 0) AS version FROM schema_migrations');
    const from = rows[0]?.version ?? 0;
    const pending = pendingMigrations(from, migrations);
    for (const migration of pending) {
      await client.query(migration.sql);
      await client.query('INSERT INTO schema_migrations (version) VALUES ($1)', [migration.version]);
    }
    await client.query('COMMIT');
    return { from, to: latestVersion(migrations), applied: pending.length };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
