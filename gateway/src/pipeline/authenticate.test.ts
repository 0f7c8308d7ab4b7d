import request from 'supertest';
import { MemoryKeys, stageApp, type LocalsSeen } from '../../test/support/stage-app';
import { generateApiKey } from '../keys/api-key';
import { authenticate } from './authenticate';
import { resolveKey } from '../../test/support/resolve-key';

const CHALLENGE = { 'WWW-Authenticate': 'Bearer realm="animal-store"' };

let keys: MemoryKeys;
beforeEach(() => {
  keys = new MemoryKeys();
});
afterEach(() => keys.close());

/** What authenticate leaves on res.locals for a request with this Authorization header (none if undefined). */
async function localsFor(authorization: string | undefined): Promise<LocalsSeen> {
  const req = request(stageApp(authenticate(keys.resolver, 'production'))).get('/v1/pets');
  const res = await (authorization === undefined ? req : req.set('Authorization', authorization)).expect(200);
  return res.body as LocalsSeen;
}

function refusal(message: string, headers: Record<string, string> = CHALLENGE): LocalsSeen {
  return { authError: { code: 'unauthorized', status: 401, message, headers } };
}

describe('the authenticate stage', () => {
  it.each([
    ['no Authorization header', undefined, 'An API key is required: send Authorization: Bearer <key>.'],
    ['another scheme', 'Basic dXNlcjpwYXNz', 'The Authorization header must use the Bearer scheme: Authorization: Bearer <key>.'],
    ['Bearer and no key', 'Bearer', 'The Authorization header carries an empty API key.'],
    ['two tokens', 'Bearer one two', 'The Authorization header is malformed; send Authorization: Bearer <key>.'],
    ['a token that is no API key', 'Bearer not-a-key', 'The API key is invalid or has been revoked.'],
  ])('when the request carries %s, then it is not refused yet: the refusal waits on res.locals with the challenge', async (_case, authorization, message) => {
    expect(await localsFor(authorization)).toEqual(refusal(message));
  });

  it('when the key is of the other environment, then the refusal says where it belongs, with no store work', async () => {
    expect(await localsFor(`Bearer ${generateApiKey('staging')}`)).toEqual(refusal('This is a staging key (ask_test_…); this is the production API.'));
    expect(keys.resolver.stats.misses).toBe(0);
  });

  it('when the caches know the key as valid, then its principal is set and nothing refused', async () => {
    const { key, keyId, accountId } = await keys.add();
    await resolveKey(keys.resolver, key);
    expect(await localsFor(`Bearer ${key}`)).toEqual({ principal: { keyId, accountId } });
  });

  it('when the caches know the key as unknown or revoked, then it is refused as invalid without a look-up', async () => {
    const { key } = await keys.add({ revoked: true });
    await resolveKey(keys.resolver, key);
    expect(await localsFor(`Bearer ${key}`)).toEqual(refusal('The API key is invalid or has been revoked.'));
  });

  it('when the caches have never seen a well-formed key, then it is left for lookUpKey as not recently valid', async () => {
    const { key } = await keys.add();
    expect(await localsFor(`Bearer ${key}`)).toEqual({ pendingKey: { apiKey: key, recentlyValid: false } });
  });

  it('when a valid key was refreshed by an account change, then it is left for lookUpKey as recently valid', async () => {
    const { key, accountId } = await keys.add();
    await resolveKey(keys.resolver, key);
    const account = (await keys.store.getAccount(accountId))!;
    await keys.store.updateAccount({ ...account, plan: 'pro' });
    expect(await localsFor(`Bearer ${key}`)).toEqual({ pendingKey: { apiKey: key, recentlyValid: true } });
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
