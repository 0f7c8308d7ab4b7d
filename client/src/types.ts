import type { components } from './generated/openapi';

/** The interface's bodies, as its OpenAPI document describes them (generated: `generated/openapi.ts`). */
export type Pet = components['schemas']['Pet'];
export type NewPet = components['schemas']['NewPet'];
export type PetStatus = components['schemas']['PetStatus'];
export type ErrorBody = components['schemas']['Error'];
/** Every `code` the API answers with. */
export type ErrorCode = ErrorBody['code'];
