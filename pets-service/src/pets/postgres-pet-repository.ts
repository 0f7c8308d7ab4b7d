import { createHash } from 'node:crypto';
import { Pool, type ClientBase, type PoolClient } from 'pg';
import type { Pet, PetStatus } from '../../../shared/src/pets';
import { ADVISORY_LOCKS } from '../db/postgres/advisory-locks';
import { guarded } from '../db/unavailable';
import { RETENTION_MS, type IdempotentInsert } from '../idempotency/records';
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

const RETENTION = `${RETENTION_MS} * interval '1 millisecond'`;
const TRY_KEY_LOCK = 'SELECT pg_try_advisory_xact_lock($1::bigint) AS acquired';
const LIVE_RECORD = `
  SELECT fingerprint, response_status AS status, response_body AS body, response_location AS location
    FROM idempotency_records
   WHERE owner = $1 AND idempotency_key = $2 AND created_at > now() - ${RETENTION}`;
// An expired record of the same key (not yet swept) is replaced; a live one never is (the
// transaction looked first, holding the key), and the WHERE makes sure of it.
const PUT_RECORD = `
  INSERT INTO idempotency_records (owner, idempotency_key, fingerprint, response_status, response_body, response_location)
  VALUES ($1, $2, $3, $4, $5, $6)
  ON CONFLICT (owner, idempotency_key) DO UPDATE SET
    fingerprint = excluded.fingerprint, created_at = excluded.created_at, response_status = excluded.response_status,
    response_body = excluded.response_body, response_location = excluded.response_location
  WHERE idempotency_records.created_at <= now() - ${RETENTION}
  RETURNING owner`;
// SKIP LOCKED: replicas sweeping at the same moment, or a create replacing one of these rows, never wait for each other.
const REMOVE_EXPIRED = `
  DELETE FROM idempotency_records
   WHERE ctid = ANY (ARRAY(
     SELECT ctid FROM idempotency_records WHERE created_at <= now() - ${RETENTION} LIMIT $1 FOR UPDATE SKIP LOCKED))`;

interface RecordRow {
  fingerprint: string;
  status: number;
  body: string;
  location: string;
}

/**
 * The pets table on PostgreSQL, through a pool (or one client, as the tests use inside a transaction).
 * Every statement but an idempotent create's is a single auto-committed one: no transaction stays
 * open across an await of this process, so a request that dies midway leaves no lock behind. An
 * idempotent create is one transaction of a few statements (see `insertOnce`); if this process dies
 * inside it, the server ends the connection, rolls it back and lets go of its locks.
 */
export function createPostgresPetRepository(db: Pool | ClientBase): PetRepository {
  const rows = async (text: string, values: unknown[]): Promise<PetRow[]> => (await guarded(() => db.query<PetRow>(text, values))).rows;
  /** A connection of its own for a transaction: from the pool, or the one client given. */
  const connection = async (): Promise<{ client: ClientBase; release(error?: Error): void }> => {
    if (!(db instanceof Pool)) return { client: db, release: () => undefined };
    const client: PoolClient = await guarded(() => db.connect());
    return { client, release: (error) => client.release(error) };
  };
  return {
    /**
     * BEGIN; take the key's transaction-level advisory lock without waiting (taken: another request
     * with this key, on any replica, is between here and its commit: `in-flight`); look for a live
     * record in a statement of its own, so that its snapshot is taken after the lock (a record
     * committed by the lock's last holder is seen); none: insert the pet and its record; COMMIT,
     * which releases both locks. The primary key on (owner, key) stands behind the lock.
     */
    async insertOnce({ name, categoryId, status }, create) {
      const { client, release } = await connection();
      let broken: Error | undefined;
      try {
        return await guarded(async (): Promise<IdempotentInsert> => {
          try {
            await client.query('BEGIN');
            const { rows: [lock] } = await client.query<{ acquired: boolean }>(TRY_KEY_LOCK, [keyLockOf(create.owner, create.key)]);
            if (!lock?.acquired) {
              await client.query('ROLLBACK');
              return { outcome: 'in-flight' };
            }
            const { rows: [found] } = await client.query<RecordRow>(LIVE_RECORD, [create.owner, create.key]);
            if (found) {
              await client.query('ROLLBACK');
              return { outcome: 'found', fingerprint: found.fingerprint, answer: { status: found.status, body: found.body, location: found.location } };
            }
            const { rows: [row] } = await client.query<PetRow>(INSERT, [name, categoryId, status]);
            if (!row) throw new Error('INSERT … RETURNING gave no row');
            const answer = create.answerFor(toPet(row));
            const { rowCount } = await client.query(PUT_RECORD, [create.owner, create.key, create.fingerprint, answer.status, answer.body, answer.location]);
            if (rowCount !== 1) throw new Error('a live idempotency record appeared while this transaction held its key');
            await client.query('COMMIT');
            return { outcome: 'created', answer };
          } catch (error) {
            await client.query('ROLLBACK').catch((rollbackError: Error) => {
              // The connection itself failed: the pool must not hand it out again.
              broken = rollbackError;
            });
            throw error;
          }
        });
      } finally {
        release(broken);
      }
    },
    async removeExpiredRecords(limit) {
      return (await guarded(() => db.query(REMOVE_EXPIRED, [limit]))).rowCount ?? 0;
    },
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

/**
 * The key's lock: 64 bits of SHA-256 of owner and key, in the one-bigint advisory lock space (which
 * never overlaps the two-integer space of `ADVISORY_LOCKS`). Two keys sharing a lock would only
 * see each other as in flight, for the length of a create (and the primary key still tells them apart).
 */
export function keyLockOf(owner: string, key: string): string {
  return createHash('sha256').update(owner).update('\n').update(key).digest().readBigInt64BE(0).toString();
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
