import { ERROR_CODES } from './errors';
import { PET_STATUSES } from './pets';
import { PUBLIC_PATH_PREFIX } from './settings';

/**
 * The interface description: the single source of the request rules.
 * The pets-service compiles its validators from these schemas (see `validation.ts`),
 * and the gateway serves this document at GET /v1/openapi.json.
 */
export const PAGE_SIZE = { minimum: 1, maximum: 100, default: 20 } as const;
export const MAX_CATEGORY_ID = Number.MAX_SAFE_INTEGER;

/**
 * The rules of free text, as JSON Schema patterns (ECMA-262, matched by ajv with the `u` flag).
 * `validation.ts` words each refusal from the pattern that failed, so a pattern is stated here once.
 */
export const TEXT_PATTERNS = {
  /** At least one character that is not white space. */
  notBlank: '\\S',
  /**
   * No C0 control character (U+0000–U+001F) and no DEL (U+007F): PostgreSQL's text refuses U+0000
   * (a 500 rather than a 400), and the others break logs, terminals and CSV exports. Refused the
   * same way whatever the database.
   */
  noControlCharacters: '^[^\\u0000-\\u001F\\u007F]*$',
} as const;

const SERVING_SERVER_DESCRIPTION = 'This server (the one serving this document)';

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
  // The server that serves the document comes first, so that "Try it out" on /docs calls it: `/v1`
  // is relative to the document's own address (`interfaceDescriptionFor` puts PUBLIC_BASE_URL there).
  servers: [
    { url: PUBLIC_PATH_PREFIX, description: SERVING_SERVER_DESCRIPTION },
    { url: 'https://api.animalstore.example/v1', description: 'Production' },
    { url: 'https://staging.api.animalstore.example/v1', description: 'Staging' },
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
        description:
          'With an `Idempotency-Key`, the request may be sent again safely (after a timeout, a 502 or a lost connection): ' +
          'within 24 hours, the same key with the same JSON body answers what the first request answered (status, body, `Location`) ' +
          'with `Idempotent-Replayed: true`, and creates nothing. Keys belong to the account.',
        parameters: [{ $ref: '#/components/parameters/IdempotencyKey' }],
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
              'Idempotent-Replayed': { $ref: '#/components/headers/Idempotent-Replayed' },
            },
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Pet' } } },
          },
          '400': errorWithHeaders('Invalid body (`invalid_body`), malformed JSON (`malformed_json`), or an `Idempotency-Key` that is not 1–255 visible ASCII characters (`invalid_parameter`).'),
          '403': errorWithHeaders(
            'The API key is read-only (`forbidden`): it may only `GET` and `HEAD`. Answered after rate limiting: the request counts against the quota, like any accepted one.',
            { 'WWW-Authenticate': { schema: { type: 'string' }, description: '`Bearer …, error="insufficient_scope"`.' } },
          ),
          '408': errorWithHeaders('The body did not arrive in full within the body deadline (`request_timeout`); the connection is closed.'),
          '409': errorWithHeaders('The first request with this `Idempotency-Key` is still being answered (`idempotency_key_in_use`): retry after `Retry-After`.', {
            'Retry-After': { $ref: '#/components/headers/Retry-After' },
          }),
          '413': errorWithHeaders('Body over 16 KiB (`payload_too_large`).'),
          '415': errorWithHeaders('Content type missing or not `application/json` (`unsupported_media_type`).'),
          '422': errorWithHeaders('This `Idempotency-Key` was used, within the last 24 hours, for a request with another body (`idempotency_key_reused`).'),
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

export type InterfaceDescription = Omit<typeof openApiDocument, 'servers'> & {
  readonly servers: ReadonlyArray<{ readonly url: string; readonly description: string }>;
};

/**
 * The document as a deployment serves it: first the serving server, at `PUBLIC_BASE_URL` when it
 * is set (absolute, for tools that read the document from elsewhere), else the relative `/v1`;
 * then production and staging.
 */
export function interfaceDescriptionFor(publicBaseUrl: string | undefined): InterfaceDescription {
  if (publicBaseUrl === undefined) return openApiDocument;
  const [, ...others] = openApiDocument.servers;
  return { ...openApiDocument, servers: [{ url: publicBaseUrl, description: SERVING_SERVER_DESCRIPTION }, ...others] };
}

type Schemas = typeof openApiDocument.components.schemas;

/**
 * A component schema ready for json-schema-to-ts's `FromSchema` (compile time only), so the bodies'
 * types are derived from the document (`pets.ts`, `errors.ts`) and a field, a required list or an
 * enum is stated once. The document's components ride along so `#/components/...` references resolve.
 */
export type ComponentSchema<Name extends keyof Schemas> = Schemas[Name] & { readonly components: { readonly schemas: Schemas } };
