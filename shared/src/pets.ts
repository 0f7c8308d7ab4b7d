import type { FromSchema } from 'json-schema-to-ts';
// The bodies' types come from the document.
import type { ComponentSchema } from './openapi';
import { PET_STATUSES } from './openapi/value-rules';

export { PET_STATUSES };
export type PetStatus = (typeof PET_STATUSES)[number];

/** A create request as the client may send it (`status` may be left out: it defaults). */
export type NewPet = FromSchema<ComponentSchema<'NewPet'>, { keepDefaultedPropertiesOptional: true }>;
export type Pet = FromSchema<ComponentSchema<'Pet'>>;

/** The public successor of the deprecated getPet, and its end of life (RFC 8594, RFC 9745). */
export const GET_PET_DEPRECATION_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  // RFC 9745: a Structured Field date (@ + Unix seconds) of when it became deprecated.
  Deprecation: '@1767225600',
  Sunset: 'Thu, 05 Dec 2030 00:00:00 GMT',
  Link: '</v1/pets>; rel="successor-version"',
});
