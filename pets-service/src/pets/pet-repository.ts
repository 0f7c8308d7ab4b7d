import type { Database } from 'better-sqlite3';
import { ApiError } from '../../../shared/src/errors';
import type { NewPet, Pet, PetStatus } from '../../../shared/src/pets';

interface PetRow {
  id: number;
  name: string;
  category_id: number;
  status: PetStatus;
}

export interface PageRequest {
  /** Only pets with an id greater than this one; 0 for the first page. */
  readonly afterId: number;
  readonly limit: number;
  readonly status?: PetStatus;
}

export interface PetRepository {
  insert(pet: Required<NewPet>): Pet;
  findById(id: number): Pet | undefined;
  /** Up to `limit` pets in id order, after `afterId`. */
  page(request: PageRequest): Pet[];
}

/** The only module that runs statements against the pets table. */
export function createPetRepository(db: Database): PetRepository {
  // Prepared once: compiling SQL on every request is wasted work.
  const insert = db.prepare<[string, number, string], PetRow>(
    'INSERT INTO pets (name, category_id, status) VALUES (?, ?, ?) RETURNING id, name, category_id, status',
  );
  const byId = db.prepare<[number], PetRow>('SELECT id, name, category_id, status FROM pets WHERE id = ?');
  const pageOfAll = db.prepare<[number, number], PetRow>(
    'SELECT id, name, category_id, status FROM pets WHERE id > ? ORDER BY id LIMIT ?',
  );
  const pageOfStatus = db.prepare<[string, number, number], PetRow>(
    'SELECT id, name, category_id, status FROM pets WHERE status = ? AND id > ? ORDER BY id LIMIT ?',
  );

  return {
    insert: ({ name, categoryId, status }) => {
      const row = guarded(() => insert.get(name, categoryId, status));
      if (!row) throw new Error('INSERT … RETURNING gave no row');
      return toPet(row);
    },
    findById: (id) => {
      const row = guarded(() => byId.get(id));
      return row && toPet(row);
    },
    page: ({ afterId, limit, status }) =>
      guarded(() => (status === undefined ? pageOfAll.all(afterId, limit) : pageOfStatus.all(status, afterId, limit))).map(toPet),
  };
}

function toPet(row: PetRow): Pet {
  return { id: row.id, name: row.name, categoryId: row.category_id, status: row.status };
}

/**
 * The one place where SQLite lock contention becomes a client-visible answer: another
 * connection held the lock past the busy timeout, so ask the client to retry shortly.
 */
function guarded<T>(statement: () => T): T {
  try {
    return statement();
  } catch (error) {
    if (isLockContention(error)) {
      throw new ApiError('service_unavailable', 'The pet store is busy; retry shortly.', { 'Retry-After': '1' });
    }
    throw error;
  }
}

/**
 * Judged by the SqliteError's code alone, no `instanceof`: the native addon keeps the error class
 * of the first copy of better-sqlite3 loaded in the process, which need not be this module's
 * copy (or even this realm's Error, as under jest).
 * Extended codes such as SQLITE_BUSY_SNAPSHOT or SQLITE_LOCKED_SHAREDCACHE mean the same here.
 */
function isLockContention(error: unknown): boolean {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' && /^SQLITE_(BUSY|LOCKED)(_|$)/.test(code);
}
