import { PUBLIC_PATH_PREFIX } from './settings';
import { components } from './openapi/components';
import { paths } from './openapi/paths';

// The bounds of the values, kept importable from here (the pets-service and the tests read them).
export { MAX_CATEGORY_ID, PAGE_SIZE, TEXT_PATTERNS } from './openapi/value-rules';

const SERVING_SERVER_DESCRIPTION = 'This server (the one serving this document)';

/**
 * The interface description: the single source of the request rules.
 * The pets-service compiles its validators from these schemas (see `validation.ts`),
 * and the gateway serves this document at GET /v1/openapi.json. Its parts are in `openapi/`:
 * the operations (`paths.ts`), the refusals they share (`responses.ts`), what they refer to
 * (`components.ts`, `schemas.ts`) and the bounds of the values (`value-rules.ts`).
 */
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
  paths,
  components,
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
