import Ajv2020, { type ErrorObject, type AnySchema } from 'ajv/dist/2020';
import { ApiError, type ErrorCode } from './errors';
import { openApiDocument, TEXT_PATTERNS } from './openapi';

/**
 * One JSON Schema validator for the whole project. The interface description is registered
 * whole, so a rule lives once: `schemaOf('NewPet')` is the schema the document publishes.
 */
const ajv = new Ajv2020({
  allErrors: false,
  strict: false, // the OpenAPI document carries keywords (openapi, info, paths…) that are not JSON Schema
  formats: { int64: true },
  useDefaults: true,
});
const DOCUMENT_ID = 'openapi.json';
ajv.addSchema(openApiDocument as unknown as AnySchema, DOCUMENT_ID);

export function schemaOf(component: string): AnySchema {
  return { $ref: `${DOCUMENT_ID}#/components/schemas/${component}` };
}

export function parameterSchemaOf(parameter: string): AnySchema {
  return { $ref: `${DOCUMENT_ID}#/components/parameters/${parameter}/schema` };
}

/** What each text pattern of the document asks for, in the words of a refusal. */
const PATTERN_RULES: Readonly<Record<string, string>> = {
  [TEXT_PATTERNS.notBlank]: 'must not be empty or only white space',
  [TEXT_PATTERNS.noControlCharacters]: 'must not contain control characters (U+0000–U+001F, U+007F)',
};

/** Turns the first schema violation into a sentence that names the field. */
export function describeViolation(error: ErrorObject, subject: string): string {
  const path = error.instancePath
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.');
  const field = path ? `${subject === 'body' ? '' : `${subject}.`}${path}` : subject;
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return `${path ? `${field}.` : ''}${String(p.missingProperty)} is required.`;
    case 'additionalProperties':
      return `${path ? `${field}.` : ''}${String(p.additionalProperty)} is not an accepted field.`;
    case 'type':
      return `${field} must be ${p.type === 'integer' ? 'an integer' : p.type === 'object' ? 'a JSON object' : `a ${String(p.type)}`}.`;
    case 'enum':
      return `${field} must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}.`;
    case 'minimum':
      return `${field} must be at least ${String(p.limit)}.`;
    case 'maximum':
      return `${field} must be at most ${String(p.limit)}.`;
    case 'minLength':
      return `${field} must have at least ${String(p.limit)} character${p.limit === 1 ? '' : 's'}.`;
    case 'maxLength':
      return `${field} must have at most ${String(p.limit)} characters.`;
    case 'pattern':
      return `${field} ${PATTERN_RULES[String(p.pattern)] ?? `must match the pattern ${String(p.pattern)}`}.`;
    case 'minItems':
      return `${field} must have at least ${String(p.limit)} item${p.limit === 1 ? '' : 's'}.`;
    case 'maxItems':
      return `${field} must have at most ${String(p.limit)} items.`;
    case 'uniqueItems':
      return `${field} must not list a value twice.`;
    default:
      return `${field} ${error.message ?? 'is invalid'}.`;
  }
}

export type Validator<T> = (value: unknown) => T;

/**
 * A validator that returns the value typed as T (defaults applied) or throws an ApiError
 * with `code` and a message naming the offending field.
 */
export function createValidator<T>(schema: AnySchema, code: ErrorCode, subject: string): Validator<T> {
  const validate = ajv.compile(schema);
  return (value) => {
    if (validate(value)) return value as T;
    const first = validate.errors?.[0];
    throw new ApiError(code, first ? describeViolation(first, subject) : `${subject} is invalid.`);
  };
}
