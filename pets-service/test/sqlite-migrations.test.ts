import path from 'node:path';
import { rmSync } from 'node:fs';
import { SQLITE_MIGRATIONS, migrateSqlite } from '../src/db/sqlite/migrations';
import { openSqliteDatabase } from '../src/db/sqlite/database';
import { openDatabase, pragma, prepare } from '../src/db/sqlite/keep-alive';
import { createSqlitePetRepository } from '../src/pets/sqlite-pet-repository';
import { tempDir } from './support';

let dir: string;
let file: string;

beforeEach(() => {
  dir = tempDir();
  file = path.join(dir, 'pets.db');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const latest = SQLITE_MIGRATIONS.at(-1)!.version;

describe('schema migrations on SQLite', () => {
  it('when a new file is opened, then every migration runs and user_version is the latest', () => {
    const { db, migration } = openSqliteDatabase(file);
    expect(migration).toEqual({ from: 0, to: latest, applied: SQLITE_MIGRATIONS.length });
    expect(pragma(db, 'user_version')).toBe(latest);
    db.close();
  });

  it('when an existing file is re-opened, then its data stays and no migration runs again', async () => {
    const first = openSqliteDatabase(file);
    await createSqlitePetRepository(first.db).insert({ name: 'Rex', categoryId: 1, status: 'sold' });
    first.db.close();

    const second = openSqliteDatabase(file);
    expect(second.migration).toEqual({ from: latest, to: latest, applied: 0 });
    expect(await createSqlitePetRepository(second.db).findById(1)).toEqual({ id: 1, name: 'Rex', categoryId: 1, status: 'sold' });
    second.db.close();
  });

  it('when a file of version 1 (before idempotency records) is opened, then it gains the records table and keeps its pets', async () => {
    const old = openDatabase(file);
    migrateSqlite(old, SQLITE_MIGRATIONS.slice(0, 1));
    // The repository of this build cannot be made on it (it prepares its statements on the latest schema): what version 1 wrote.
    prepare(old, "INSERT INTO pets (name, category_id, status) VALUES ('Rex', 1, 'sold')").run();
    old.close();

    const { db, migration } = openSqliteDatabase(file);
    expect(migration).toEqual({ from: 1, to: latest, applied: latest - 1 });
    const pets = createSqlitePetRepository(db);
    expect(await pets.findById(1)).toEqual({ id: 1, name: 'Rex', categoryId: 1, status: 'sold' });
    const create = { owner: 'gateway acct', key: 'k', fingerprint: 'f', answerFor: () => ({ status: 201, body: '{}', location: '/pets/2' }) };
    expect(await pets.insertOnce({ name: 'Max', categoryId: 1, status: 'sold' }, create)).toEqual({ outcome: 'created', answer: { status: 201, body: '{}', location: '/pets/2' } });
    db.close();
  });

  it('when a migration fails, then the whole step is rolled back and the version is unchanged', () => {
    const db = openDatabase(file);
    const broken = [...SQLITE_MIGRATIONS, { version: latest + 1, sql: 'CREATE TABLE extra (x INTEGER); THIS IS NOT SQL;' }];
    expect(() => migrateSqlite(db, broken)).toThrow();
    expect(pragma(db, 'user_version')).toBe(0);
    expect(prepare(db, "SELECT name FROM sqlite_schema WHERE type = 'table' AND name IN ('pets', 'extra')").all()).toEqual([]);
    db.close();
  });

  it('when the file comes from a newer build, then opening it is refused', () => {
    const db = openDatabase(file);
    pragma(db, `user_version = ${latest + 1}`);
    db.close();
    expect(() => openSqliteDatabase(file)).toThrow(/newer than this build/);
  });

  it('when opened, then WAL, foreign keys, FULL synchronous and a short busy timeout are set', () => {
    const { db } = openSqliteDatabase(file);
    expect(pragma(db, 'journal_mode')).toBe('wal');
    expect(pragma(db, 'foreign_keys')).toBe(1);
    expect(pragma(db, 'synchronous')).toBe(2);
    expect(pragma(db, 'busy_timeout')).toBeLessThanOrEqual(250);
    db.close();
  });

  it('when a status page is queried, then the (status, id) index serves it without a sort', () => {
    const { db } = openSqliteDatabase(file);
    const plan = prepare(db, 'EXPLAIN QUERY PLAN SELECT id, name, category_id, status FROM pets WHERE status = ? AND id > ? ORDER BY id LIMIT ?').all('sold', 0, 21) as { detail: string }[];
    const details = plan.map((step) => step.detail).join('\n');
    expect(details).toMatch(/USING INDEX pets_status_id \(status=\? AND (?:id|rowid)>\?\)/);
    expect(details).not.toMatch(/TEMP B-TREE/);
    db.close();
  });
});
