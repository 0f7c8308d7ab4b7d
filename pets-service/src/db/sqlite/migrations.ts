import type { Database } from 'better-sqlite3';
import { pragma } from './keep-alive';
import { latestVersion, pendingMigrations, type Migration, type MigrationResult } from '../migrations';

/**
 * Append only: an applied migration is history and is never edited. The version is kept in
 * `PRAGMA user_version`.
 * Value rules (name length, status values) are deliberately not repeated as CHECKs here:
 * they live once, in the interface description, and change there without a table rebuild.
 */
export const SQLITE_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    sql: `
      -- AUTOINCREMENT: an id that was once handed out (and sits in some client's Location)
      -- never comes back for another pet, even if rows are removed some day.
      CREATE TABLE pets (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,
        name        TEXT    NOT NULL,
        category_id INTEGER NOT NULL,
        status      TEXT    NOT NULL
      ) STRICT;
      -- Serves the status-filtered pages: equality on status, then id order and id > cursor.
      CREATE INDEX pets_status_id ON pets (status, id);
    `,
  },
  {
    version: 2,
    sql: `
      -- One row per Idempotency-Key that created a pet, written in the pet's own transaction
      -- (docs/adr/0019-idempotency-records.md). The answer is kept as it was sent, so a retry gets
      -- the same bytes. created_at is Unix milliseconds; a record older than 24 hours is ignored,
      -- replaced when its key comes again, and removed in batches by the sweeper (the index).
      CREATE TABLE idempotency_records (
        owner             TEXT    NOT NULL,
        idempotency_key   TEXT    NOT NULL,
        fingerprint       TEXT    NOT NULL,
        created_at        INTEGER NOT NULL,
        response_status   INTEGER NOT NULL,
        response_body     TEXT    NOT NULL,
        response_location TEXT    NOT NULL,
        PRIMARY KEY (owner, idempotency_key)
      ) STRICT;
      CREATE INDEX idempotency_records_created_at ON idempotency_records (created_at);
    `,
  },
];

/**
 * Brings the schema to the latest version in one IMMEDIATE transaction, so a failed step
 * leaves the file as it was and two processes starting together do not both migrate.
 */
export function migrateSqlite(db: Database, migrations: readonly Migration[] = SQLITE_MIGRATIONS): MigrationResult {
  const run = db.transaction((): MigrationResult => {
    const from = pragma(db, 'user_version') as number;
    const pending = pendingMigrations(from, migrations);
    for (const migration of pending) {
      db.exec(migration.sql);
      // user_version lives in the file header, which is part of this transaction.
      pragma(db, `user_version = ${migration.version}`);
    }
    return { from, to: latestVersion(migrations), applied: pending.length };
  });
  return run.immediate();
}
