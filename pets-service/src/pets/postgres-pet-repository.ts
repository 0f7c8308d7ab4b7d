import type { ClientBase, Pool } from 'pg';
import type { Pet, PetStatus } from '../../../shared/src/pets';
import { ADVISORY_LOCKS } from '../db/postgres/advisory-locks';
import { guarded } from '../db/unavailable';
import type { PetRepository } from './pet-repository';

/** node-postgres returns `bigint` (int8) columns as text, since they may exceed 2^53. */
interface PetRow {
  id: string;
  name: string;
  category_id: string;
  status: PetStatus;
}

const COLUMNS = 'id, name, category_id, status';

/**
 * Serialised creates: the lock is taken before the id is drawn (the CTE is scanned before the
 * row, and so the identity default, is formed) and released by the commit. Without it, two
 * concurrent creates could commit out of id order, and a reader in between would see id 11
 * without id 10, hand out a cursor after 11, and the client would never see 10. SQLite gives
 * this order by having a single writer; here it costs creates their concurrency (see ADR 0005).
 */
const INSERT = `
  WITH id_order AS (SELECT pg_advisory_xact_lock(${ADVISORY_LOCKS.idOrder.join(', ')}))
  INSERT INTO pets (name, category_id, status)
  SELECT $1::text, $2::bigint, $3::text FROM id_order
  RETURNING ${COLUMNS}`;
const BY_ID = `SELECT ${COLUMNS} FROM pets WHERE id = $1::bigint`;
const PAGE_OF_ALL = `SELECT ${COLUMNS} FROM pets WHERE id > $1::bigint ORDER BY id LIMIT $2`;
const PAGE_OF_STATUS = `SELECT ${COLUMNS} FROM pets WHERE status = $1::text AND id > $2::bigint ORDER BY id LIMIT $3`;

/**
 * The pets table on PostgreSQL, through a pool (or one client, as the tests use inside a transaction).
 * Every statement is a single auto-committed one: no transaction stays open across an await
 * of this process, so a request that dies midway leaves no lock behind.
 */
export function createPostgresPetRepository(db: Pool | ClientBase): PetRepository {
  const rows = async (text: string, values: unknown[]): Promise<PetRow[]> => (await guarded(() => db.query<PetRow>(text, values))).rows;
  return {
    async insert({ name, categoryId, status }) {
      const [row] = await rows(INSERT, [name, categoryId, status]);
      if (!row) throw new Error('INSERT … RETURNING gave no row');
      return toPet(row);
    },
    async findById(id) {
      const [row] = await rows(BY_ID, [id]);
      return row && toPet(row);
    },
    async page({ afterId, limit, status }) {
      const found = status === undefined ? await rows(PAGE_OF_ALL, [afterId, limit]) : await rows(PAGE_OF_STATUS, [status, afterId, limit]);
      return found.map(toPet);
    },
  };
}

function toPet(row: PetRow): Pet {
  return { id: safeInteger(row.id, 'id'), name: row.name, categoryId: safeInteger(row.category_id, 'category_id'), status: row.status };
}

/** Exact, or an error: a bigint beyond 2^53-1 would silently round to a neighbour's number. */
function safeInteger(text: string, column: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new Error(`pets.${column} ${text} is beyond what a JSON number carries exactly`);
  return value;
}
