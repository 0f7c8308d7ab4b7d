import { ERROR_SCHEMA } from '../errors';
import { MAX_CATEGORY_ID, PET_STATUSES, TEXT_PATTERNS } from './value-rules';

/** The bodies: what a client sends and receives, and the Error shape of every refusal. */
export const schemas = {
  PetStatus: { type: 'string', enum: [...PET_STATUSES], description: 'Availability status.' },
  NewPet: {
    type: 'object',
    required: ['name', 'categoryId'],
    additionalProperties: false,
    properties: {
      name: {
        type: 'string',
        minLength: 1,
        maxLength: 100,
        pattern: TEXT_PATTERNS.notBlank,
        // A second pattern needs its own subschema; ajv checks it before the length rules.
        allOf: [{ pattern: TEXT_PATTERNS.noControlCharacters }],
        description:
          'The animal\'s name: 1–100 Unicode characters, not only white space, without control characters (U+0000–U+001F, U+007F).',
      },
      categoryId: {
        type: 'integer',
        format: 'int64',
        minimum: 1,
        maximum: MAX_CATEGORY_ID,
        description: 'Identifier of the category the animal belongs to.',
      },
      status: { $ref: '#/components/schemas/PetStatus', default: 'available' },
    },
  },
  Pet: {
    type: 'object',
    required: ['id', 'name', 'categoryId', 'status'],
    additionalProperties: false,
    properties: {
      id: { type: 'integer', format: 'int64', minimum: 1, description: 'Assigned by the service on creation.' },
      name: { type: 'string' },
      categoryId: { type: 'integer', format: 'int64' },
      status: { $ref: '#/components/schemas/PetStatus' },
    },
  },
  Pets: { type: 'array', items: { $ref: '#/components/schemas/Pet' } },
  Error: ERROR_SCHEMA,
} as const;
