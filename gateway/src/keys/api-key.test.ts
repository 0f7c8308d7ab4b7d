import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import fc from 'fast-check';
import { API_ENVIRONMENTS } from '../../../shared/src/settings';
import {
  API_KEY_LENGTH,
  API_KEY_PREFIXES,
  ACCOUNT_ID_PATTERN,
  BASE62_ALPHABET,
  KEY_ID_PATTERN,
  generateApiKey,
  hashApiKey,
  newAccountId,
  newKeyId,
  parseApiKey,
  parseAuthorization,
  sameHash,
  sameSecret,
} from './api-key';

const base62Char = fc.constantFrom(...BASE62_ALPHABET.split(''));
const API_KEY_PREFIX = API_KEY_PREFIXES.production;
const environment = fc.constantFrom(...API_ENVIRONMENTS);

describe('API keys', () => {
  it.each([
    ['production', 'ask_live_'],
    ['staging', 'ask_test_'],
  ] as const)('when a %s key is generated, then it starts with %s, has the fixed length, only base62 after the prefix, and parses as %s', (env, prefix) => {
    const key = generateApiKey(env);
    expect(key.startsWith(prefix)).toBe(true);
    expect(key).toHaveLength(API_KEY_LENGTH);
    expect(key.slice(prefix.length)).toMatch(/^[0-9A-Za-z]+$/);
    expect(parseApiKey(key)).toEqual({ ok: true, key, environment: env });
  });

  it('when no environment is named, then a production key is generated (the default of API_ENVIRONMENT)', () => {
    expect(parseApiKey(generateApiKey())).toMatchObject({ ok: true, environment: 'production' });
  });

  it("when a key's prefix is edited to the other environment's, then the checksum refuses it", () => {
    fc.assert(
      fc.property(environment, (env) => {
        const key = generateApiKey(env);
        const other = API_ENVIRONMENTS.find((e) => e !== env)!;
        const edited = API_KEY_PREFIXES[other] + key.slice(API_KEY_PREFIXES[env].length);
        expect(parseApiKey(edited)).toEqual({ ok: false, reason: 'checksum' });
      }),
      { numRuns: 500 },
    );
  });

  it('when many keys are generated, then they are all distinct and all parse', () => {
    const keys = new Set(Array.from({ length: 2000 }, generateApiKey));
    expect(keys.size).toBe(2000);
    for (const key of keys) expect(parseApiKey(key).ok).toBe(true);
  });

  it('when the random characters are drawn, then every base62 character appears (no bias towards a sub-range)', () => {
    const seen = new Set(Array.from({ length: 300 }, generateApiKey).join(''));
    for (const char of BASE62_ALPHABET) expect(seen.has(char)).toBe(true);
  });

  const tail = 'a'.repeat(API_KEY_LENGTH - API_KEY_PREFIX.length);
  it.each<[string, (key: string) => unknown, string]>([
    ['a non-string', () => 42, 'prefix'],
    ['an empty string', () => '', 'prefix'],
    ['another prefix', () => `ask_prod_${tail}`, 'prefix'],
    ['a well-formed staging body on a checksum of its own', () => `ask_test_${tail}`, 'checksum'],
    ['an upper-case prefix', () => `ASK_LIVE_${tail}`, 'prefix'],
    ['one character short', (key) => key.slice(0, -1), 'length'],
    ['one character long', (key) => `${key}0`, 'length'],
    ['a character outside base62', (key) => `${key.slice(0, 12)}-${key.slice(13)}`, 'alphabet'],
    ['padded with a space', (key) => `${key.slice(0, -1)} `, 'alphabet'],
  ])('when the candidate is %s, then it is refused (%#)', (_what, candidateOf, reason) => {
    expect(parseApiKey(candidateOf(generateApiKey()))).toEqual({ ok: false, reason });
  });

  it('when any one character after the prefix is mistyped, then the checksum refuses the key', () => {
    fc.assert(
      fc.property(environment, fc.nat(API_KEY_LENGTH - API_KEY_PREFIX.length - 1), base62Char, (env, offset, replacement) => {
        const key = generateApiKey(env);
        const at = API_KEY_PREFIX.length + offset;
        fc.pre(key[at] !== replacement);
        const typo = key.slice(0, at) + replacement + key.slice(at + 1);
        expect(parseApiKey(typo)).toEqual({ ok: false, reason: 'checksum' });
      }),
      { numRuns: 2000 },
    );
  });

  it('when two neighbouring characters are swapped, then the checksum refuses the key', () => {
    fc.assert(
      fc.property(fc.nat(API_KEY_LENGTH - API_KEY_PREFIX.length - 2), (offset) => {
        const key = generateApiKey();
        const at = API_KEY_PREFIX.length + offset;
        fc.pre(key[at] !== key[at + 1]);
        const swapped = key.slice(0, at) + key[at + 1] + key[at] + key.slice(at + 2);
        expect(parseApiKey(swapped).ok).toBe(false);
      }),
      { numRuns: 1000 },
    );
  });

  it("when a CRC-32 is computed (zlib's, the checksum's), then it matches the standard check value", () => {
    expect(crc32('123456789')).toBe(0xcbf43926);
    // Of the UTF-8 bytes (C3 A9 for 'é'), as the table loop it replaced computed it.
    expect(crc32('é')).toBe(0x0e048d3e);
  });

  it('when a key is hashed, then the result is its SHA-256 in lower-case hex', () => {
    const key = generateApiKey();
    expect(hashApiKey(key)).toBe(createHash('sha256').update(key).digest('hex'));
    expect(hashApiKey(key)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('when hashes or secrets are compared, then only equal values match, whatever their lengths', () => {
    const hash = hashApiKey(generateApiKey());
    expect(sameHash(hash, hash)).toBe(true);
    expect(sameHash(hash, hashApiKey(generateApiKey()))).toBe(false);
    expect(sameHash(hash, hash.slice(1))).toBe(false);
    expect(sameSecret('admin-token', 'admin-token')).toBe(true);
    expect(sameSecret('admin-token', 'admin-token-longer')).toBe(false);
    expect(sameSecret('', 'x')).toBe(false);
  });

  it('when ids are generated, then they carry their prefix and are distinct', () => {
    const keyIds = new Set(Array.from({ length: 500 }, newKeyId));
    const accountIds = new Set(Array.from({ length: 500 }, newAccountId));
    expect(keyIds.size).toBe(500);
    expect(accountIds.size).toBe(500);
    for (const id of keyIds) expect(id).toMatch(KEY_ID_PATTERN);
    for (const id of accountIds) expect(id).toMatch(ACCOUNT_ID_PATTERN);
  });
});

describe('parseAuthorization', () => {
  it.each([
    ['Bearer abc', 'abc'],
    ['bearer abc', 'abc'],
    ['BEARER abc', 'abc'],
    ['BeArEr    abc', 'abc'],
    ['Bearer a.b-c_d~e+f/g==', 'a.b-c_d~e+f/g=='],
  ])('when the header is "%s", then the token is "%s"', (header, token) => {
    expect(parseAuthorization(header)).toEqual({ ok: true, token });
  });

  it.each([
    [undefined, 'missing'],
    ['', 'missing'],
    ['   ', 'missing'],
    ['Basic dXNlcjpwYXNz', 'scheme'],
    ['Token abc', 'scheme'],
    ['Bearerabc', 'scheme'],
    ['Bearer', 'empty'],
    ['Bearer abc def', 'malformed'],
    ['Bearer\tabc', 'malformed'],
    ['Bearer abc\u00e9', 'malformed'],
    ['Bearer, abc', 'malformed'],
  ])('when the header is %j, then it is refused as %s', (header, reason) => {
    expect(parseAuthorization(header)).toEqual({ ok: false, reason });
  });
});
