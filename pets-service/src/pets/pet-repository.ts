import type { NewPet, Pet, PetStatus } from '../../../shared/src/pets';
import type { IdempotentCreate, IdempotentInsert } from '../idempotency/records';

export interface PageRequest {
  /** Only pets with an id greater than this one; 0 for the first page. */
  readonly afterId: number;
  readonly limit: number;
  readonly status?: PetStatus;
}

/**
 * Where pets are kept: SQLite (`sqlite-pet-repository.ts`) or PostgreSQL (`postgres-pet-repository.ts`),
 * both held to `pets-service/test/pet-repository.contract.ts`.
 *
 * What both promise:
 * - ids are positive safe integers, increasing in the order creates are acknowledged, never reused;
 * - a pet is visible to every reader once `insert` resolves, and never before every pet with a
 *   smaller id is, so that "after id N" is a position a cursor can rely on (nothing appears behind it later);
 * - a resolved `insert` is durable (committed and flushed);
 * - a busy, unreachable or saturated database rejects with a `DatabaseUnavailableError` (`db/unavailable.ts`).
 */
export interface PetRepository {
  insert(pet: Required<NewPet>): Promise<Pet>;
  /**
   * `insert` under an Idempotency-Key: when no record of the last 24 hours has the key, the pet and
   * the record of its answer are committed in one transaction (both or neither); when one has, it is
   * returned and nothing is written; while another request holds the key, `in-flight`, at once.
   */
  insertOnce(pet: Required<NewPet>, create: IdempotentCreate): Promise<IdempotentInsert>;
  /** Deletes up to `limit` records older than 24 hours, in one short transaction; how many went. */
  removeExpiredRecords(limit: number): Promise<number>;
  findById(id: number): Promise<Pet | undefined>;
  /** Up to `limit` pets in id order, after `afterId`. */
  page(request: PageRequest): Promise<Pet[]>;
}
