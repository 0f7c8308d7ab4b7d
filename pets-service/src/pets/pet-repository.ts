import type { NewPet, Pet, PetStatus } from '../../../shared/src/pets';

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
  findById(id: number): Promise<Pet | undefined>;
  /** Up to `limit` pets in id order, after `afterId`. */
  page(request: PageRequest): Promise<Pet[]>;
}
