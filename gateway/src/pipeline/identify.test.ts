import request from 'supertest';
import { resolveKey } from '../../test/support/resolve-key';
import { MemoryKeys, stageApp, type LocalsSeen } from '../../test/support/stage-app';
import { LookupGate } from '../accounts/lookup-gate';
import { MemoryAccountStore } from '../accounts/memory-account-store';
import type { KeyResolution } from '../accounts/types';
import { generateApiKey, hashApiKey } from '../keys/api-key';
import { StoreUnavailableError } from '../store-errors';
import { identify } from './identify';

const CHALLENGE = { 'WWW-Authenticate': 'Bearer realm="animal-store"' };

/** A store that fails every key look-up with `error`, as a store that is down or broken does. */
class FailingStore extends MemoryAccountStore {
  constructor(private readonly error: Error) {
    super();
  }

  override resolveKey(): Promise<KeyResolution | null> {
    return Promise.reject(this.error);
  }
}

/** A gate that admits every look-up, and one that admits none (no budget, no room in the queue). */
const open = () => new LookupGate({ perClientPerMinute: 100, queuedPerSecond: 100 });
const shut = () => new LookupGate({ perClientPerMinute: 0, queuedPerSecond: 0.001, maxQueued: 0 });

let keys: MemoryKeys;
beforeEach(() => {
  keys = new MemoryKeys();
});
afterEach(() => keys.close());

/** What identify leaves on res.locals for a request with this Authorization header (none if undefined). */
async function localsFor(authorization: string | undefined, gate: LookupGate = open()): Promise<LocalsSeen> {
  const app = stageApp(identify({ keys: keys.resolver, lookups: gate, environment: 'production', anonIpv6PrefixLength: 56 }));
  const req = request(app).get('/v1/pets');
  const res = await (authorization === undefined ? req : req.set('Authorization', authorization)).expect(200);
  return res.body as LocalsSeen;
}

function refusal(message: string, headers: Record<string, string> = CHALLENGE): LocalsSeen {
  return { identityRefusal: { code: 'unauthorized', status: 401, message, headers } };
}

/** The key with its last checksum character changed (to another one, always). */
function withWrongChecksum(key: string): string {
  return `${key.slice(0, -1)}${key.endsWith('0') ? '1' : '0'}`;
}

const unavailable = (message: string): LocalsSeen => ({ identityRefusal: { code: 'service_unavailable', status: 503, message, headers: { 'Retry-After': '1' } } });

describe('the identify stage, from the Authorization header and the key caches', () => {
  it.each([
    ['no Authorization header', undefined, 'An API key is required: send Authorization: Bearer <key>.'],
    ['another scheme', 'Basic dXNlcjpwYXNz', 'The Authorization header must use the Bearer scheme: Authorization: Bearer <key>.'],
    ['Bearer and no key', 'Bearer', 'The Authorization header carries an empty API key.'],
    ['two tokens', 'Bearer one two', 'The Authorization header is malformed; send Authorization: Bearer <key>.'],
    ['a token that is no API key', 'Bearer not-a-key', 'The API key is invalid or has been revoked.'],
    ['a key with a wrong checksum', `Bearer ${withWrongChecksum(generateApiKey('production'))}`, 'The API key is invalid or has been revoked.'],
  ])('when the request carries %s, then it is not refused yet: the refusal waits on res.locals with the challenge, and no cache is asked', async (_case, authorization, message) => {
    expect(await localsFor(authorization)).toEqual(refusal(message));
    expect(keys.resolver.stats).toMatchObject({ hits: 0, unknownHits: 0, misses: 0 });
  });

  it('when the key is of the other environment, then the refusal says where it belongs, with no store work', async () => {
    expect(await localsFor(`Bearer ${generateApiKey('staging')}`)).toEqual(refusal('This is a staging key (ask_test_…); this is the production API.'));
    expect(keys.resolver.stats.misses).toBe(0);
  });

  it('when the caches know the key as valid, then its principal is set and nothing refused, from one cache hit', async () => {
    const { key, keyId, accountId } = await keys.add();
    await resolveKey(keys.resolver, key);
    const before = keys.resolver.stats;
    expect(await localsFor(`Bearer ${key}`)).toEqual({ principal: { keyId, accountId } });
    expect(keys.resolver.stats).toMatchObject({ hits: before.hits + 1, misses: before.misses });
  });

  it('when the caches know the key as unknown or revoked, then it is refused as invalid without a look-up', async () => {
    const { key } = await keys.add({ revoked: true });
    await resolveKey(keys.resolver, key);
    expect(await localsFor(`Bearer ${key}`, shut())).toEqual(refusal('The API key is invalid or has been revoked.'));
  });

  it('when the cached key has expired, then it is refused from the cache with the expiry challenge, naming its replacement if rolled', async () => {
    const expiresAt = '2020-01-01T00:00:00.000Z';
    const expiredChallenge = { 'WWW-Authenticate': 'Bearer realm="animal-store", error="invalid_token", error_description="The API key has expired"' };
    const plain = await keys.add({ expiresAt });
    const rolled = await keys.add({ expiresAt, replacedBy: 'key_00000000000000000000' });
    for (const { key } of [plain, rolled]) await resolveKey(keys.resolver, key);

    expect(await localsFor(`Bearer ${plain.key}`)).toEqual(refusal(`This API key expired at ${expiresAt}; use another key of the account, or create one.`, expiredChallenge));
    expect(await localsFor(`Bearer ${rolled.key}`)).toEqual(
      refusal(`This API key expired at ${expiresAt}: it was rolled, and its replacement is key key_00000000000000000000; use that key.`, expiredChallenge),
    );
  });
});

describe('the identify stage, when the caches cannot answer', () => {
  it('when the store knows the key, then its principal is set and cached', async () => {
    const { key, keyId, accountId } = await keys.add();
    expect(await localsFor(`Bearer ${key}`)).toEqual({ principal: { keyId, accountId } });
    expect(keys.resolver.cached(hashApiKey(key)).state).toBe('valid');
  });

  it('when the store does not know it, or it is revoked, then the refusal is left as invalid', async () => {
    const { key: revoked } = await keys.add({ revoked: true });
    for (const apiKey of [generateApiKey('production'), revoked]) {
      expect(await localsFor(`Bearer ${apiKey}`)).toEqual(refusal('The API key is invalid or has been revoked.'));
    }
  });

  it('when the key the store returns has expired, then the refusal is the expiry', async () => {
    const { key } = await keys.add({ expiresAt: '2021-06-01T00:00:00.000Z' });
    const { identityRefusal } = await localsFor(`Bearer ${key}`);
    expect(identityRefusal).toMatchObject({ code: 'unauthorized', message: 'This API key expired at 2021-06-01T00:00:00.000Z; use another key of the account, or create one.' });
  });

  it('when the look-up gate does not admit the look-up, then the refusal is 503 with Retry-After, and the store is not asked', async () => {
    const { key } = await keys.add();
    expect(await localsFor(`Bearer ${key}`, shut())).toEqual(unavailable('Too many API keys are waiting to be verified right now; retry shortly.'));
    expect(keys.resolver.cached(hashApiKey(key)).state).toBe('uncached');
  });

  it('when a valid key was refreshed by an account change, then it is looked up again without the gate', async () => {
    const { key, keyId, accountId } = await keys.add();
    await resolveKey(keys.resolver, key);
    const account = (await keys.store.getAccount(accountId))!;
    await keys.store.updateAccount({ ...account, plan: 'pro' });
    expect(keys.resolver.cached(hashApiKey(key)).state).toBe('recheck');
    expect(await localsFor(`Bearer ${key}`, shut())).toEqual({ principal: { keyId, accountId } });
  });

  it.each([
    ['is unavailable', new StoreUnavailableError('down'), unavailable('The API key cannot be verified right now; retry shortly.')],
    ['fails otherwise', new Error('bug'), { identityRefusal: { code: 'internal_error', status: 500, message: 'The server failed to handle the request.', headers: {} } }],
  ])('when the store %s, then the refusal is left for after rate limiting, never thrown', async (_case, error, expected) => {
    keys.close();
    keys = new MemoryKeys(new FailingStore(error));
    expect(await localsFor(`Bearer ${generateApiKey('production')}`)).toEqual(expected);
  });
});
