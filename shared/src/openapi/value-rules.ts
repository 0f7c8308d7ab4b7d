/**
 * The bounds and patterns of the values a request carries. The document's parameters and schemas
 * state them, and the pets-service and the tests read them from here.
 */
export const PAGE_SIZE = { minimum: 1, maximum: 100, default: 20 } as const;
export const MAX_CATEGORY_ID = Number.MAX_SAFE_INTEGER;
/** A pet's availability (`PetStatus`). */
export const PET_STATUSES = ['available', 'pending', 'sold'] as const;

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
