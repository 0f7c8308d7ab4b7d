/**
 * `Authorization: Bearer <token>` as both services read it: the gateway for API keys and admin
 * tokens (`gateway/src/keys/api-key.ts`, which also refuses several such headers), the pets-service
 * for internal tokens (`pets-service/src/http/authenticate.ts`).
 */

export type AuthorizationRefusal = 'missing' | 'scheme' | 'empty' | 'malformed';
export type ParsedAuthorization = { ok: true; token: string } | { ok: false; reason: AuthorizationRefusal };

/** RFC 7235 auth-scheme token; RFC 6750 makes `Bearer` case-insensitive. */
const CREDENTIALS = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+)(?: +(.*))?$/s;
/** One run of visible ASCII: a superset of RFC 6750's b64token, so admin tokens of any printable form work. */
const TOKEN = /^[\x21-\x7e]+$/;

/**
 * Reads `Authorization: Bearer <token>`: the scheme in any case, one or more spaces before
 * the token, and nothing else (no second token, no tabs, no trailing parameters).
 * Node has already trimmed the header value's surrounding white space.
 */
export function parseAuthorization(headerValue: string | undefined): ParsedAuthorization {
  if (headerValue === undefined || headerValue.trim() === '') return { ok: false, reason: 'missing' };
  const match = CREDENTIALS.exec(headerValue);
  if (!match) return { ok: false, reason: 'malformed' };
  if (match[1]!.toLowerCase() !== 'bearer') return { ok: false, reason: 'scheme' };
  const token = match[2] ?? '';
  if (token === '') return { ok: false, reason: 'empty' };
  if (!TOKEN.test(token)) return { ok: false, reason: 'malformed' };
  return { ok: true, token };
}
