import request from 'supertest';
import { MemoryKeys, presetLocals, stageApp, type LocalsSeen } from '../../test/support/stage-app';
import { LookupGate } from '../accounts/lookup-gate';
import { MemoryAccountStore } from '../accounts/memory-account-store';
import type { KeyResolution, Principal } from '../accounts/types';
import { generateApiKey } from '../keys/api-key';
import { StoreUnavailableError } from '../store-errors';
import { lookUpKey } from './look-up-key';
import type { V1Locals } from './locals';

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
const shut = () => new LookupGate({ perClientPerMinute: 0, queuedPerSecond: 0, maxQueued: 0 });

let keys: MemoryKeys;
afterEach(() => keys.close());

async function localsAfter(gate: LookupGate, locals: V1Locals): Promise<LocalsSeen> {
  const app = stageApp(presetLocals(locals), lookUpKey(keys.resolver, gate, 56));
  return (await request(app).get('/v1/pets').expect(200)).body as LocalsSeen;
}

const invalid = { code: 'unauthorized', status: 401, message: 'The API key is invalid or has been revoked.', headers: { 'WWW-Authenticate': 'Bearer realm="animal-store"' } };
const unavailable = (message: string) => ({ code: 'service_unavailable', status: 503, message, headers: { 'Retry-After': '1' } });

describe('the lookUpKey stage', () => {
  beforeEach(() => {
    keys = new MemoryKeys();
  });

  it('when authenticate left no pending key, then it changes nothing', async () => {
    const principal = { keyId: 'key_1', accountId: 'acct_1' } as Principal;
    expect(await localsAfter(shut(), { principal })).toEqual({ principal });
    expect(keys.resolver.stats.misses).toBe(0);
  });

  it('when the store knows the pending key, then its principal is set and the pending key cleared', async () => {
    const { key, keyId, accountId } = await keys.add();
    expect(await localsAfter(open(), { pendingKey: { apiKey: key, recentlyValid: false } })).toEqual({ principal: { keyId, accountId } });
  });

  it('when the store does not know it, or it is revoked, then the refusal is left as invalid', async () => {
    const { key: revoked } = await keys.add({ revoked: true });
    for (const apiKey of [generateApiKey('production'), revoked]) {
      expect(await localsAfter(open(), { pendingKey: { apiKey, recentlyValid: false } })).toEqual({ authError: invalid });
    }
  });

  it('when the key the store returns has expired, then the refusal is the expiry', async () => {
    const { key } = await keys.add({ expiresAt: '2021-06-01T00:00:00.000Z' });
    const { authError } = await localsAfter(open(), { pendingKey: { apiKey: key, recentlyValid: false } });
    expect(authError).toMatchObject({ code: 'unauthorized', message: 'This API key expired at 2021-06-01T00:00:00.000Z; use another key of the account, or create one.' });
  });

  it('when the look-up gate does not admit the look-up, then the refusal is 503 with Retry-After, and the store is not asked', async () => {
    const { key } = await keys.add();
    expect(await localsAfter(shut(), { pendingKey: { apiKey: key, recentlyValid: false } })).toEqual({
      authError: unavailable('Too many API keys are waiting to be verified right now; retry shortly.'),
    });
    expect(keys.resolver.cached(key).state).toBe('uncached');
  });

  it('when the key was recently valid, then it is looked up without the gate', async () => {
    const { key, keyId, accountId } = await keys.add();
    expect(await localsAfter(shut(), { pendingKey: { apiKey: key, recentlyValid: true } })).toEqual({ principal: { keyId, accountId } });
  });

  it.each([
    ['is unavailable', new StoreUnavailableError('down'), unavailable('The API key cannot be verified right now; retry shortly.')],
    ['fails otherwise', new Error('bug'), { code: 'internal_error', status: 500, message: 'The server failed to handle the request.', headers: {} }],
  ])('when the store %s, then the refusal is left for after rate limiting, never thrown', async (_case, error, authError) => {
    keys = new MemoryKeys(new FailingStore(error));
    expect(await localsAfter(open(), { pendingKey: { apiKey: generateApiKey('production'), recentlyValid: false } })).toEqual({ authError });
  });
});
