import { commonErrors, errorWithHeaders, rateLimitHeaderRefs } from './responses';

/** The operations: each path, its parameters, its body and every answer it may give. */
export const paths = {
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
        '400': errorWithHeaders('Invalid body (`invalid_body`), malformed JSON (`malformed_json`), or an `Idempotency-Key` that is not 1–255 visible ASCII characters or that `Connection` names (it would be removed as hop-by-hop) (`invalid_parameter`).'),
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
} as const;
