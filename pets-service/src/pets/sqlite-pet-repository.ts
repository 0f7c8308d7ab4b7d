import type { Database } from 'better-sqlite3';
import type { NewPet, Pet, PetStatus } from '../../../shared/src/pets';
import { prepare } from '../db/sqlite/keep-alive';
import { guarded } from '../db/unavailable';
import { RETENTION_MS, type IdempotentCreate, type IdempotentInsert } from '../idempotency/records';
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

  const liveRecord = prepare<[string, string, number], RecordRow>(
    db,
    `SELECT fingerprint, response_status AS status, response_body AS body, response_location AS location
       FROM idempotency_records WHERE owner = ? AND idempotency_key = ? AND created_at > ?`,
  );
  // An expired record of the same key (not yet swept) is replaced; a live one never is (the
  // transaction looked first), and the WHERE makes sure of it: no row written fails the create.
  const putRecord = prepare<[string, string, string, number, number, string, string, number], { owner: string }>(
    db,
    `INSERT INTO idempotency_records (owner, idempotency_key, fingerprint, created_at, response_status, response_body, response_location)
     VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (owner, idempotency_key) DO UPDATE SET
       fingerprint = excluded.fingerprint, created_at = excluded.created_at, response_status = excluded.response_status,
       response_body = excluded.response_body, response_location = excluded.response_location
     WHERE idempotency_records.created_at <= ?
     RETURNING owner`,
  );
  const removeExpired = prepare<[number, number]>(
    db,
    'DELETE FROM idempotency_records WHERE rowid IN (SELECT rowid FROM idempotency_records WHERE created_at <= ? LIMIT ?)',
  );

  /**
   * Look, insert, record: one IMMEDIATE transaction (the write lock from the start, so the look
   * and the write see the same database). better-sqlite3 runs it synchronously, so no other request
   * of this process comes between: on SQLite a key is never seen in flight; a second process on
   * the same file waits for the lock (busy timeout) and then finds the record.
   */
  const insertOnce = db.transaction((pet: Required<NewPet>, create: IdempotentCreate): IdempotentInsert => {
    const now = Date.now();
    const expiredBefore = now - RETENTION_MS;
    const found = liveRecord.get(create.owner, create.key, expiredBefore);
    if (found) return { outcome: 'found', fingerprint: found.fingerprint, answer: { status: found.status, body: found.body, location: found.location } };
    const row = insert.get(pet.name, pet.categoryId, pet.status);
    if (!row) throw new Error('INSERT … RETURNING gave no row');
    const answer = create.answerFor(toPet(row));
    const stored = putRecord.get(create.owner, create.key, create.fingerprint, now, answer.status, answer.body, answer.location, expiredBefore);
    if (!stored) throw new Error('a live idempotency record appeared inside the transaction that found none');
    return { outcome: 'created', answer };
  });

  return {
    insertOnce: (pet, create) => guarded(() => insertOnce.immediate(pet, create)),
    removeExpiredRecords: (limit) => guarded(() => removeExpired.run(Date.now() - RETENTION_MS, limit).changes),
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

interface RecordRow {
  fingerprint: string;
  status: number;
  body: string;
  location: string;
}

/** A row of a page: id, name, category_id, status. */
type PetValues = [number, string, number, PetStatus];

function toPet(row: PetRow): Pet {
  return { id: row.id, name: row.name, categoryId: row.category_id, status: row.status };
}
