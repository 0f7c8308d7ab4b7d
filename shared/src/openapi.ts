import { ERROR_CODES } from './errors';
import { PET_STATUSES } from './pets';

/**
 * The interface description: the single source of the request rules.
 * The pets-service compiles its validators from these schemas (see `validation.ts`),
 * and the gateway serves this document at GET /v1/openapi.json.
 */
export const PAGE_SIZE = { minimum: 1, maximum: 100, default: 20 } as const;
export const MAX_CATEGORY_ID = Number.MAX_SAFE_INTEGER;


const rateLimitHeaderRefs = {
  'X-RateLimit-Limit': { $ref: '#/components/headers/X-RateLimit-Limit' },
  'X-RateLimit-Remaining': { $ref: '#/components/headers/X-RateLimit-Remaining' },
  'X-RateLimit-Reset': { $ref: '#/components/headers/X-RateLimit-Reset' },
  'RateLimit-Policy': { $ref: '#/components/headers/RateLimit-Policy' },
  RateLimit: { $ref: '#/components/headers/RateLimit' },
  'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' },
};

const errorWithHeaders = (description: string, extra: Record<string, unknown> = {}) => ({
  description,
  headers: { ...rateLimitHeaderRefs, ...extra },
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

const commonErrors = {
  '401': errorWithHeaders('API key missing, invalid, revoked, expired or of the other environment (code `unauthorized`); the message says which, and for a key rolled past its grace period names the id of its replacement.', {
    'WWW-Authenticate': { schema: { type: 'string' }, description: 'Always `Bearer`.' },
  }),
  '429': errorWithHeaders('Rate limit exceeded (`rate_limited`) or the key is temporarily banned (`temporarily_banned`).', {
    'Retry-After': { $ref: '#/components/headers/Retry-After' },
  }),
  '500': errorWithHeaders('The gateway failed (`internal_error`).'),
  '502': errorWithHeaders('The pets-service could not be reached (`bad_gateway`).'),
  '503': errorWithHeaders('The pets-service is busy (`service_unavailable`).'),
  '504': errorWithHeaders('The pets-service did not answer in time (`gateway_timeout`).'),
};

export const openApiDocument = {
  openapi: '3.1.0',
  info: {
    title: 'Animal Store API',
    version: '1.0.0',
    description:
      'List, add and look up animals held in a store. Every operation needs an API key sent as `Authorization: Bearer <key>`. ' +
      'Requests are limited per account with a per-minute window (60 s) and a per-day window (the calendar day in UTC); ' +
      'every response carries `X-RateLimit-*`, `RateLimit-Policy` and `RateLimit` headers describing the window with the fewest requests left.',
  },
  servers: [
    { url: 'https://api.animalstore.example/v1', description: 'Production' },
    { url: 'https://staging.api.animalstore.example/v1', description: 'Staging' },
    { url: 'http://localhost:8080/v1', description: 'Local gateway (npm start)' },
  ],
  security: [{ bearerAuth: [] }],
  tags: [
    { name: 'pets' },
    {
      name: 'store',
      description: 'Orders: not implemented yet; every operation under `/store/` answers 501 `not_implemented`.',
      // Read by the gateway's route table: everything under this prefix is answered 501.
      'x-path-prefix': '/store',
      'x-not-implemented': true,
    },
  ],
  paths: {
    '/pets': {
      get: {
        operationId: 'listPets',
        tags: ['pets'],
        summary: 'List animals',
        description:
          'Animals sorted by `id` ascending. When more results exist, the `Link` header carries the next page (`rel="next"`) with an opaque `cursor`.',
        parameters: [
          { $ref: '#/components/parameters/limit' },
          { $ref: '#/components/parameters/status' },
          { $ref: '#/components/parameters/cursor' },
        ],
        responses: {
          '200': {
            description: 'A page of animals.',
            headers: {
              ...rateLimitHeaderRefs,
              Link: { schema: { type: 'string' }, description: 'The next page: `<…?cursor=…>; rel="next"`, present only when more results exist.' },
            },
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Pets' } } },
          },
          '400': errorWithHeaders('A query parameter is invalid, empty or repeated (`invalid_parameter`).'),
          ...commonErrors,
        },
      },
      post: {
        operationId: 'createPet',
        tags: ['pets'],
        summary: 'Add an animal',
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { $ref: '#/components/schemas/NewPet' } } },
        },
        responses: {
          '201': {
            description: 'Animal added.',
            headers: {
              ...rateLimitHeaderRefs,
              Location: { schema: { type: 'string' }, description: '`/v1/pets/{id}`' },
            },
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Pet' } } },
          },
          '400': errorWithHeaders('Invalid body (`invalid_body`) or malformed JSON (`malformed_json`).'),
          '403': errorWithHeaders(
            'The API key is read-only (`forbidden`): it may only `GET` and `HEAD`. Answered after rate limiting: the request counts against the quota, like any accepted one.',
            { 'WWW-Authenticate': { schema: { type: 'string' }, description: '`Bearer …, error="insufficient_scope"`.' } },
          ),
          '408': errorWithHeaders('The body did not arrive in full within the body deadline (`request_timeout`); the connection is closed.'),
          '413': errorWithHeaders('Body over 16 KiB (`payload_too_large`).'),
          '415': errorWithHeaders('Content type missing or not `application/json` (`unsupported_media_type`).'),
          ...commonErrors,
        },
      },
    },
    '/pets/{petId}': {
      get: {
        operationId: 'getPet',
        tags: ['pets'],
        summary: 'Get an animal (deprecated)',
        description:
          'Deprecated: to be removed on 5 December 2030. Use `GET /pets` with a `status` filter. Every response carries `Deprecation`, `Sunset` and `Link: </v1/pets>; rel="successor-version"`.',
        deprecated: true,
        parameters: [{ $ref: '#/components/parameters/petId' }],
        responses: {
          '200': {
            description: 'Animal found.',
            headers: rateLimitHeaderRefs,
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Pet' } } },
          },
          '400': errorWithHeaders('`petId` is not a positive integer (`invalid_parameter`).'),
          '404': errorWithHeaders('No animal with that identifier (`not_found`).'),
          ...commonErrors,
        },
      },
    },
    '/store/orders': {
      get: {
        operationId: 'listOrders',
        tags: ['store'],
        summary: 'List orders (not implemented)',
        'x-stability': 'experimental',
        'x-not-implemented': true,
        responses: { '501': errorWithHeaders('Not implemented yet (`not_implemented`).'), ...commonErrors },
      },
    },
  },
  components: {
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
    },
    schemas: {
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
            pattern: '\\S',
            description: 'The animal\'s name: 1–100 Unicode characters, not only white space.',
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
      Error: {
        type: 'object',
        required: ['code', 'message', 'status'],
        properties: {
          code: { type: 'string', enum: [...ERROR_CODES], description: 'Machine-readable error code.' },
          message: { type: 'string', description: 'Human-readable description.' },
          status: { type: 'integer', description: 'The HTTP status code.' },
        },
      },
    },
  },
} as const;

type Schemas = typeof openApiDocument.components.schemas;

/**
 * A component schema ready for json-schema-to-ts's `FromSchema` (compile time only), so the bodies'
 * types are derived from the document (`pets.ts`, `errors.ts`) and a field, a required list or an
 * enum is stated once. The document's components ride along so `#/components/...` references resolve.
 */
export type ComponentSchema<Name extends keyof Schemas> = Schemas[Name] & { readonly components: { readonly schemas: Schemas } };
