import { schemas } from './schemas';
import { MAX_CATEGORY_ID, PAGE_SIZE } from './value-rules';

/** What the operations refer to (`#/components/...`): the key scheme, parameters, headers, bodies. */
export const components = {
  securitySchemes: {
    bearerAuth: {
      type: 'http',
      scheme: 'bearer',
      description:
        'An API key: `ask_live_…` for production, `ask_test_…` for staging. Each environment refuses the other\'s keys with 401 `unauthorized` and a message naming the environment the key belongs to. ' +
        'A key is `read-write` or `read-only` (a read-only key may only `GET` and `HEAD`; anything else is 403 `forbidden`), and may have an expiry, after which it is refused with 401 `unauthorized` saying when it expired.',
    },
  },
  parameters: {
    limit: {
      name: 'limit',
      in: 'query',
      required: false,
      description: 'Maximum number of animals returned.',
      schema: { type: 'integer', ...PAGE_SIZE },
    },
    status: {
      name: 'status',
      in: 'query',
      required: false,
      description: 'Filters by availability status.',
      schema: { $ref: '#/components/schemas/PetStatus' },
    },
    cursor: {
      name: 'cursor',
      in: 'query',
      required: false,
      description: 'Opaque page position, taken from the `Link` header of the previous page.',
      schema: { type: 'string', minLength: 1, maxLength: 200 },
    },
    IdempotencyKey: {
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description:
        'A key the client chooses for this create (a UUID, for instance) and sends again with every retry of it: 1–255 visible ASCII characters. ' +
        'Within 24 hours, the same key with the same JSON body replays the first answer; with another body it is refused (422 `idempotency_key_reused`); ' +
        'while the first request is still being answered, 409 `idempotency_key_in_use`. A request refused before anything was created stores nothing.',
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7E]+$' },
    },
    petId: {
      name: 'petId',
      in: 'path',
      required: true,
      description: 'The identifier of the animal.',
      schema: { type: 'integer', format: 'int64', minimum: 1, maximum: MAX_CATEGORY_ID },
    },
  },
  headers: {
    'X-RateLimit-Limit': { schema: { type: 'integer' }, description: 'The quota of the window with the fewest requests left.' },
    'X-RateLimit-Remaining': { schema: { type: 'integer' }, description: 'Requests left in that window.' },
    'X-RateLimit-Reset': { schema: { type: 'integer' }, description: 'Unix time (seconds) at which that window resets.' },
    'RateLimit-Policy': { schema: { type: 'string' }, description: 'Every window, e.g. `"minute";q=60;w=60, "day";q=1000;w=86400`.' },
    RateLimit: { schema: { type: 'string' }, description: 'The binding window, e.g. `"minute";r=59;t=42`.' },
    'Retry-After': { schema: { type: 'integer', minimum: 1 }, description: 'Seconds to wait before retrying.' },
    'X-Request-Id': { schema: { type: 'string' }, description: 'The request id: the client\'s, when valid, or a generated one.' },
    'Idempotent-Replayed': {
      schema: { type: 'string', enum: ['true'] },
      description: 'Present (`true`) when the answer is the replay of an earlier request with the same `Idempotency-Key`: nothing was created this time.',
    },
  },
  schemas,
} as const;
