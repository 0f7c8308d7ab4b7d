import type Database from 'better-sqlite3';
import type { MigrationResult } from '../migrations';
import { openDatabase, pragma } from './keep-alive';
import { migrateSqlite } from './migrations';

/**
 * How long a statement waits for another connection's write lock before SQLITE_BUSY.
 * better-sqlite3 is synchronous, so this wait blocks the event loop: keep it short and
 * answer 503 instead (see docs/adr/0002-sqlite-durability.md).
 */
export const BUSY_TIMEOUT_MS = 100;

export interface OpenedSqliteDatabase {
  readonly db: Database.Database;
  readonly migration: MigrationResult;
}

/** Opens (creating if needed) the pets database, sets its durability pragmas and migrates it. */
export function openSqliteDatabase(file: string): OpenedSqliteDatabase {
  const db = openDatabase(file, { timeout: BUSY_TIMEOUT_MS });
  try {
    // WAL: readers never wait for the writer, and a commit appends instead of rewriting pages.
    pragma(db, 'journal_mode = WAL');
    // FULL: every commit is fsynced before the 201 goes out, so an acknowledged pet survives
    // power loss too, not only a crash of the process (which NORMAL would already survive).
    pragma(db, 'synchronous = FULL');
    pragma(db, 'foreign_keys = ON');
    const migration = migrateSqlite(db);
    return { db, migration };
  } catch (error) {
    db.close();
    throw error;
  }
}
