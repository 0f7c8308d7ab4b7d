export { AnimalStoreClient } from './client';
export type { AnimalStoreClientOptions, CallOptions, CreatePetOptions, ListPetsOptions, PetsOptions, PetsPage } from './client';
export { AnimalStoreError } from './errors';
export type { AnimalStoreErrorFields } from './errors';
export type { RateLimit } from './rate-limit';
export type { ErrorBody, ErrorCode, NewPet, Pet, PetStatus } from './types';
