import { ApiError } from '../../../shared/src/errors';
import type { NewPet, Pet, PetStatus } from '../../../shared/src/pets';
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

export interface PetService {
  listPets(request: ListPetsRequest): Promise<PetsPage>;
  /** `pet` has been validated, defaults applied. */
  createPet(pet: Required<NewPet>): Promise<Pet>;
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
    async getPet(id) {
      const pet = await repository.findById(id);
      if (!pet) throw new ApiError('not_found', `No pet with id ${id}.`);
      return pet;
    },
  };
}
