import type { Database } from 'better-sqlite3';
import type { Pet, PetStatus } from '../../../shared/src/pets';
import { prepare } from '../db/sqlite/keep-alive';
import { guarded } from '../db/unavailable';
import type { PetRepository } from './pet-repository';

interface PetRow {
  id: number;
  name: string;
  category_id: number;
  status: PetStatus;
}

/**
 * The pets table on SQLite. One connection; SQLite serialises writers, so ids are handed out in
 * commit order. better-sqlite3 is synchronous: each call does its work before returning its promise.
 */
export function createSqlitePetRepository(db: Database): PetRepository {
  // Prepared once: compiling SQL on every request is wasted work (and kept: see keep-alive.ts).
  const insert = prepare<[string, number, string], PetRow>(
    db,
    'INSERT INTO pets (name, category_id, status) VALUES (?, ?, ?) RETURNING id, name, category_id, status',
  );
  const byId = prepare<[number], PetRow>(db, 'SELECT id, name, category_id, status FROM pets WHERE id = ?');
  // Pages come back as rows of values (`raw`), turned into Pets once: no intermediate object per row.
  const pageOfAll = prepare<[number, number], PetValues>(db, 'SELECT id, name, category_id, status FROM pets WHERE id > ? ORDER BY id LIMIT ?').raw(true);
  const pageOfStatus = prepare<[string, number, number], PetValues>(
    db,
    'SELECT id, name, category_id, status FROM pets WHERE status = ? AND id > ? ORDER BY id LIMIT ?',
  ).raw(true);

  return {
    async insert({ name, categoryId, status }) {
      const row = await guarded(() => insert.get(name, categoryId, status));
      if (!row) throw new Error('INSERT … RETURNING gave no row');
      return toPet(row);
    },
    async findById(id) {
      const row = await guarded(() => byId.get(id));
      return row && toPet(row);
    },
    async page({ afterId, limit, status }) {
      const rows = await guarded(() => (status === undefined ? pageOfAll.all(afterId, limit) : pageOfStatus.all(status, afterId, limit)));
      return rows.map(([id, name, categoryId, petStatus]) => ({ id, name, categoryId, status: petStatus }));
    },
  };
}

/** A row of a page: id, name, category_id, status. */
type PetValues = [number, string, number, PetStatus];

function toPet(row: PetRow): Pet {
  return { id: row.id, name: row.name, categoryId: row.category_id, status: row.status };
}
