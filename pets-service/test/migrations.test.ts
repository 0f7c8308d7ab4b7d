import Database from 'better-sqlite3';
import path from 'node:path';
import { rmSync } from 'node:fs';
import { MIGRATIONS, migrate } from '../src/db/migrations';
import { openDatabase } from '../src/db/database';
import { createPetRepository } from '../src/pets/pet-repository';
import { tempDir } from './support';

let dir: string;
let file: string;

beforeEach(() => {
  dir = tempDir();
  file = path.join(dir, 'pets.db');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const latest = MIGRATIONS.at(-1)!.version;

describe('schema migrations', () => {
  it('when a new file is opened, then every migration runs and user_version is the latest', () => {
    const { db, migration } = openDatabase(file);
    expect(migration).toEqual({ from: 0, to: latest, applied: MIGRATIONS.length });
    expect(db.pragma('user_version', { simple: true })).toBe(latest);
    db.close();
  });

  it('when an existing file is re-opened, then its data stays and no migration runs again', () => {
    const first = openDatabase(file);
    createPetRepository(first.db).insert({ name: 'Rex', categoryId: 1, status: 'sold' });
    first.db.close();

    const second = openDatabase(file);
    expect(second.migration).toEqual({ from: latest, to: latest, applied: 0 });
    expect(createPetRepository(second.db).findById(1)).toEqual({ id: 1, name: 'Rex', categoryId: 1, status: 'sold' });
    second.db.close();
  });

  it('when a migration fails, then the whole step is rolled back and the version is unchanged', () => {
    const db = new Database(file);
    const broken = [...MIGRATIONS, { version: latest + 1, sql: 'CREATE TABLE extra (x INTEGER); THIS IS NOT SQL;' }];
    expect(() => migrate(db, broken)).toThrow();
    expect(db.pragma('user_version', { simple: true })).toBe(0);
    expect(db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name IN ('pets', 'extra')").all()).toEqual([]);
    db.close();
  });

  it('when the file comes from a newer build, then opening it is refused', () => {
    const db = new Database(file);
    db.pragma(`user_version = ${latest + 1}`);
    db.close();
    expect(() => openDatabase(file)).toThrow(/newer than this build/);
  });

  it('when opened, then WAL, foreign keys, FULL synchronous and a short busy timeout are set', () => {
    const { db } = openDatabase(file);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(db.pragma('synchronous', { simple: true })).toBe(2);
    expect(db.pragma('busy_timeout', { simple: true })).toBeLessThanOrEqual(250);
    db.close();
  });

  it('when a status page is queried, then the (status, id) index serves it without a sort', () => {
    const { db } = openDatabase(file);
    const plan = db
      .prepare('EXPLAIN QUERY PLAN SELECT id, name, category_id, status FROM pets WHERE status = ? AND id > ? ORDER BY id LIMIT ?')
      .all('sold', 0, 21) as { detail: string }[];
    const details = plan.map((step) => step.detail).join('\n');
    expect(details).toMatch(/USING INDEX pets_status_id \(status=\? AND (?:id|rowid)>\?\)/);
    expect(details).not.toMatch(/TEMP B-TREE/);
    db.close();
  });
});
