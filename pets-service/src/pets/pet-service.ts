import { ApiError } from '../../../shared/src/errors';
import type { NewPet, Pet, PetStatus } from '../../../shared/src/pets';
import type { IdempotentCreate, StoredAnswer } from '../idempotency/records';
import type { PetRepository } from './pet-repository';

export interface ListPetsRequest {
  readonly limit: number;
  readonly status?: PetStatus;
  readonly afterId: number;
}

export interface PetsPage {
  readonly pets: Pet[];
  /** Whether a further page exists after the last pet of this one. */
  readonly hasMore: boolean;
}

/** What an idempotent create answers: the first answer, now or again. */
export interface IdempotentAnswer {
  readonly answer: StoredAnswer;
  /** True when the key had already created its pet: this is that answer again, and nothing was created. */
  readonly replayed: boolean;
}

export interface PetService {
  listPets(request: ListPetsRequest): Promise<PetsPage>;
  /** `pet` has been validated, defaults applied. */
  createPet(pet: Required<NewPet>): Promise<Pet>;
  /** `createPet` under an Idempotency-Key (CONTRACT "Idempotent creates"); refusals throw ApiErrors. */
  createPetOnce(pet: Required<NewPet>, create: IdempotentCreate): Promise<IdempotentAnswer>;
  getPet(id: number): Promise<Pet>;
}

export function createPetService(repository: PetRepository): PetService {
  return {
    async listPets({ limit, status, afterId }) {
      // One row more than asked tells whether a next page exists, without a COUNT.
      const rows = await repository.page({ afterId, limit: limit + 1, status });
      return { pets: rows.slice(0, limit), hasMore: rows.length > limit };
    },
    createPet: (pet) => repository.insert(pet),
    async createPetOnce(pet, create) {
      const result = await repository.insertOnce(pet, create);
      switch (result.outcome) {
        case 'created':
          return { answer: result.answer, replayed: false };
        case 'found':
          if (result.fingerprint !== create.fingerprint) {
            throw new ApiError(
              'idempotency_key_reused',
              'This Idempotency-Key was used in the last 24 hours for a request with another body; use a new key for a new pet.',
            );
          }
          return { answer: result.answer, replayed: true };
        case 'in-flight':
          // Retry-After: a create holds its key for a few milliseconds, at most the statement timeout.
          throw new ApiError(
            'idempotency_key_in_use',
            'The first request with this Idempotency-Key is still being answered; retry shortly to get its answer.',
            { 'Retry-After': '1' },
          );
      }
    },
    async getPet(id) {
      const pet = await repository.findById(id);
      if (!pet) throw new ApiError('not_found', `No pet with id ${id}.`);
      return pet;
    },
  };
}
