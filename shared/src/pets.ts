export const PET_STATUSES = ['available', 'pending', 'sold'] as const;
export type PetStatus = (typeof PET_STATUSES)[number];

export interface NewPet {
  name: string;
  categoryId: number;
  status?: PetStatus;
}

export interface Pet {
  id: number;
  name: string;
  categoryId: number;
  status: PetStatus;
}

/** The public successor of the deprecated getPet, and its end of life (RFC 8594, RFC 9745). */
export const GET_PET_DEPRECATION_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  // RFC 9745: a Structured Field date (@ + Unix seconds) of when it became deprecated.
  Deprecation: '@1767225600',
  Sunset: 'Thu, 05 Dec 2030 00:00:00 GMT',
  Link: '</v1/pets>; rel="successor-version"',
});
