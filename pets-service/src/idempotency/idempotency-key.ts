import type { IncomingHttpHeaders } from 'node:http';
import { ApiError } from '../../../shared/src/errors';
import { openApiDocument } from '../../../shared/src/openapi';

/** The header's rule, read from the interface description, where it is stated once. */
const { minLength, maxLength, pattern } = openApiDocument.components.parameters.IdempotencyKey.schema;
const VISIBLE_ASCII = new RegExp(pattern);
const HEADER = 'Idempotency-Key';

const invalid = (problem: string) =>
  new ApiError('invalid_parameter', `${HEADER} ${problem}; it must be ${minLength} to ${maxLength} visible ASCII characters (U+0021 to U+007E: no spaces), sent once.`);

/**
 * The request's `Idempotency-Key`, or undefined when it has none. Node has already removed the
 * white space around the value; a header sent twice reaches us joined with ", ", and so is refused
 * for its space (the gateway forwards it joined as well).
 */
export function idempotencyKeyOf(headers: IncomingHttpHeaders): string | undefined {
  const raw = headers['idempotency-key'];
  if (raw === undefined) return undefined;
  const value = Array.isArray(raw) ? raw.join(', ') : raw;
  if (value.length < minLength) throw invalid('is empty');
  if (value.length > maxLength) throw invalid(`has ${value.length} characters`);
  if (!VISIBLE_ASCII.test(value)) throw invalid('holds a space, a control character or a character outside ASCII');
  return value;
}
