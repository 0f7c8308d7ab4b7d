import { createHash, hash, randomBytes, timingSafeEqual } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { headerCount } from '../../../shared/src/raw-headers';
import { API_ENVIRONMENTS, DEFAULT_API_ENVIRONMENT, type ApiEnvironment } from '../../../shared/src/settings';
import { parseAuthorization, type ParsedAuthorization } from '../../../shared/src/authorization';

/**
 * API keys, key ids and account ids.
 *
 * A key looks like `ask_live_<22 random base62><6 checksum base62>` (37 characters):
 * - the prefix names the environment the key belongs to: `ask_live_` production, `ask_test_`
 *   staging (`API_KEY_PREFIXES`). It makes a leaked key easy to recognise (secret scanners, logs,
 *   support tickets), and lets a deployment explain, without any store lookup, that a key it
 *   was handed belongs to the other environment;
 * - the random part is 22 characters drawn uniformly from 62 with `crypto.randomBytes`
 *   (22 × log2(62) ≈ 131 bits, so at least 128 bits of entropy);
 * - the checksum is the CRC-32 of the prefix and the random part in fixed-width base62, so a
 *   mistyped or truncated key is refused by `parseApiKey` before any store is asked about it, and
 *   a production key whose prefix was edited to `ask_test_` (or the other way round) fails it too
 *   (CRC-32 detects every change confined to 32 consecutive bits, and the two prefixes differ in
 *   four adjacent bytes). It is not a secret and proves nothing about authenticity; it only keeps
 *   garbage off the store.
 *
 * Only `hashApiKey(key)` (SHA-256, hex) is ever stored. A presented key is checked by looking
 * up its SHA-256 (an exact-match index, which reveals nothing useful about near misses), then
 * comparing the stored hash with the computed one with `crypto.timingSafeEqual` (`sameHash`),
 * so no comparison of secret material depends on how many leading characters match.
 * Hashing without a salt is sound here because the keys carry 128+ random bits: there is
 * nothing to brute-force or precompute.
 */

export const API_KEY_PREFIXES: Readonly<Record<ApiEnvironment, string>> = Object.freeze({ production: 'ask_live_', staging: 'ask_test_' });
/** Both prefixes are this long, so every key has one length. */
const PREFIX_LENGTH = API_KEY_PREFIXES.production.length;
export const BASE62_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_LENGTH = 22;
const CHECKSUM_LENGTH = 6; // 62^6 > 2^32, so every CRC-32 fits
const ID_RANDOM_LENGTH = 20; // ≈ 119 bits: ids are not secrets, they only must never collide
export const API_KEY_LENGTH = PREFIX_LENGTH + RANDOM_LENGTH + CHECKSUM_LENGTH;

const BASE62_RUN = /^[0-9A-Za-z]+$/;

/** `length` base62 characters, each uniform: bytes ≥ 248 are rejected so `% 62` has no bias. */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248) out += BASE62_ALPHABET[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

function toBase62(value: number, width: number): string {
  let out = '';
  let rest = value;
  for (let i = 0; i < width; i++) {
    out = BASE62_ALPHABET[rest % 62]! + out;
    rest = Math.floor(rest / 62);
  }
  return out;
}

function checksumOf(prefix: string, randomPart: string): string {
  // CRC-32 (IEEE) of the UTF-8 text, as zlib computes it (Node ≥ 20.15: every version engines allows).
  return toBase62(crc32(prefix + randomPart), CHECKSUM_LENGTH);
}

/** A new key of `environment` (the deployment's `API_ENVIRONMENT`). */
export function generateApiKey(environment: ApiEnvironment = DEFAULT_API_ENVIRONMENT): string {
  const prefix = API_KEY_PREFIXES[environment];
  const randomPart = randomBase62(RANDOM_LENGTH);
  return `${prefix}${randomPart}${checksumOf(prefix, randomPart)}`;
}

export type ApiKeyRefusal = 'prefix' | 'length' | 'alphabet' | 'checksum';
/** `environment`: the environment the key belongs to, which may not be the one of this deployment. */
export type ParsedApiKey = { ok: true; key: string; environment: ApiEnvironment } | { ok: false; reason: ApiKeyRefusal };

/** Checks the shape and checksum of a candidate key of either environment; never touches a store. */
export function parseApiKey(candidate: unknown): ParsedApiKey {
  const environment = typeof candidate === 'string' ? API_ENVIRONMENTS.find((env) => candidate.startsWith(API_KEY_PREFIXES[env])) : undefined;
  if (typeof candidate !== 'string' || environment === undefined) return { ok: false, reason: 'prefix' };
  if (candidate.length !== API_KEY_LENGTH) return { ok: false, reason: 'length' };
  const body = candidate.slice(PREFIX_LENGTH);
  if (!BASE62_RUN.test(body)) return { ok: false, reason: 'alphabet' };
  const randomPart = body.slice(0, RANDOM_LENGTH);
  if (body.slice(RANDOM_LENGTH) !== checksumOf(API_KEY_PREFIXES[environment], randomPart)) return { ok: false, reason: 'checksum' };
  return { ok: true, key: candidate, environment };
}

declare const keyHashBrand: unique symbol;
/**
 * A key's SHA-256 as `hashApiKey` computed it: what the key caches and the store are asked about.
 * A plain string (so stores keep it as one), marked so that a key itself can never be passed where
 * its hash is meant.
 */
export type KeyHash = string & { readonly [keyHashBrand]: true };

/**
 * SHA-256 of the key, lower-case hex: the only form a key is stored in. Every request with a key
 * hashes it once (the key caches are keyed by the hash): the one-shot `crypto.hash` (Node ≥ 20.12)
 * makes no Hash object and costs a fifth to a quarter of `createHash().update().digest()`.
 */
export function hashApiKey(key: string): KeyHash {
  return hash('sha256', key, 'hex') as KeyHash;
}

/** Constant-time equality of two hex SHA-256 digests (false for anything of another length). */
export function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}

/** Constant-time equality of two arbitrary secrets: hashing first hides their lengths too. */
export function sameSecret(a: string, b: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();
  return timingSafeEqual(digest(a), digest(b));
}

export const KEY_ID_PATTERN = /^key_[0-9A-Za-z]{20}$/;
export const ACCOUNT_ID_PATTERN = /^acct_[0-9A-Za-z]{20}$/;

export function newKeyId(): string {
  return `key_${randomBase62(ID_RANDOM_LENGTH)}`;
}

export function newAccountId(): string {
  return `acct_${randomBase62(ID_RANDOM_LENGTH)}`;
}

export { parseAuthorization, type AuthorizationRefusal, type ParsedAuthorization } from '../../../shared/src/authorization';

/** A request's `Authorization: Bearer <token>`; several Authorization headers are malformed (see raw-headers.ts). */
export function authorizationOf(req: { rawHeaders: string[]; headers: { authorization?: string } }): ParsedAuthorization {
  return headerCount(req.rawHeaders, 'authorization') > 1 ? { ok: false, reason: 'malformed' } : parseAuthorization(req.headers.authorization);
}

