import type { Request } from 'express';
import { ApiError } from '../../../shared/src/errors';
import { openApiDocument } from '../../../shared/src/openapi';
import type { PetStatus } from '../../../shared/src/pets';
import { createValidator, parameterSchemaOf } from '../../../shared/src/validation';
import type { CursorCodec } from './cursor';
import { integerOrText } from './integer-text';

/** The parameters listPets declares, taken from the interface description. */
const KNOWN_PARAMETERS: ReadonlySet<string> = new Set(
  openApiDocument.paths['/pets'].get.parameters.map(({ $ref }) => $ref.slice($ref.lastIndexOf('/') + 1)),
);
const DEFAULT_LIMIT: number = openApiDocument.components.parameters.limit.schema.default;

const validateLimit = createValidator<number>(parameterSchemaOf('limit'), 'invalid_parameter', 'limit');
const validateStatus = createValidator<PetStatus>(parameterSchemaOf('status'), 'invalid_parameter', 'status');
const validateCursor = createValidator<string>(parameterSchemaOf('cursor'), 'invalid_parameter', 'cursor');

export interface ListQuery {
  readonly limit: number;
  readonly status?: PetStatus;
  /** Pets after this id; 0 for the first page. */
  readonly afterId: number;
  /** What the client chose, so the next-page link keeps it. */
  readonly chosen: { readonly limit?: number; readonly status?: PetStatus };
}

const invalid = (message: string) => new ApiError('invalid_parameter', message);

/**
 * Reads the query string itself rather than `req.query`: a repeated parameter or `?limit`
 * without a value must be seen as such, not silently merged or defaulted.
 *
 * Unknown parameters are refused (400 naming them) rather than ignored: a misspelt `staus=sold`
 * would otherwise return the unfiltered list and look like a working filter.
 */
export function parseListQuery(req: Request, cursors: CursorCodec): ListQuery {
  const queryStart = req.originalUrl.indexOf('?');
  const params = new URLSearchParams(queryStart < 0 ? '' : req.originalUrl.slice(queryStart + 1));

  const names = [...params.keys()];
  const unknown = [...new Set(names.filter((name) => !KNOWN_PARAMETERS.has(name)))];
  if (unknown.length > 0) {
    const list = unknown.map((name) => `"${name}"`).join(', ');
    throw invalid(`Unknown query parameter${unknown.length > 1 ? 's' : ''} ${list}; accepted: ${[...KNOWN_PARAMETERS].join(', ')}.`);
  }
  const single = (name: string): string | undefined => {
    const values = params.getAll(name);
    if (values.length > 1) throw invalid(`${name} must be given at most once.`);
    if (values[0] === '') throw invalid(`${name} must not be empty.`);
    return values[0];
  };

  const limitText = single('limit');
  const statusText = single('status');
  const cursorText = single('cursor');

  const limit = limitText === undefined ? undefined : validateLimit(integerOrText(limitText));
  const status = statusText === undefined ? undefined : validateStatus(statusText);
  let afterId = 0;
  if (cursorText !== undefined) {
    const decoded = cursors.decode(validateCursor(cursorText));
    if (decoded === undefined) throw invalid('cursor is not one this service handed out; take it from the Link header of the previous page.');
    afterId = decoded;
  }
  return { limit: limit ?? DEFAULT_LIMIT, status, afterId, chosen: { limit, status } };
}
