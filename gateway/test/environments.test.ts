import request from 'supertest';
import { MemoryAccountStore } from '../src/accounts/memory-account-store';
import type { Gateway } from '../src/gateway';
import { API_KEY_PREFIXES, generateApiKey } from '../src/keys/api-key';
import { ADMIN_TOKEN, createKey, limitsOf, publicGet, startGateway } from './support/gateway';

/** Production issues ask_live_ keys, staging ask_test_ keys; each refuses the other's, saying why, without a store lookup. */
describe.each([
  { deployment: 'production', prefix: 'ask_live_', foreign: 'staging', foreignPrefix: 'ask_test_' },
  { deployment: 'staging', prefix: 'ask_test_', foreign: 'production', foreignPrefix: 'ask_live_' },
] as const)('a $deployment deployment', ({ deployment, prefix, foreign, foreignPrefix }) => {
  let gateway: Gateway;
  let resolveKey: jest.SpyInstance;
  let lastIp = 0;
  const freshIp = () => `203.0.113.${++lastIp}`;

  beforeEach(async () => {
    gateway = await startGateway({ API_ENVIRONMENT: deployment });
    resolveKey = jest.spyOn(MemoryAccountStore.prototype, 'resolveKey');
  });

  afterEach(async () => {
    resolveKey.mockRestore();
    await gateway.close();
  });

  it(`when ops create a key, then it is an ${prefix} key, says its environment, and works here`, async () => {
    const account = await request(gateway.adminApp).post('/admin/accounts').set('Authorization', `Bearer ${ADMIN_TOKEN}`).send({ name: 'A', plan: 'free' });
    const created = await request(gateway.adminApp).post(`/admin/accounts/${account.body.id}/keys`).set('Authorization', `Bearer ${ADMIN_TOKEN}`);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ key: expect.stringMatching(new RegExp(`^${prefix}[0-9A-Za-z]{28}$`)), environment: deployment });
    const res = await publicGet(gateway, '/v1/openapi.json', freshIp(), created.body.key);
    expect(res.status).toBe(200);
    expect(limitsOf(res).limit).toBe(60); // the account's window: the key was recognised
  });

  it(`when a ${foreign} key is sent, then 401 unauthorized naming the environment it belongs to, with the anonymous headers and no store lookup`, async () => {
    const res = await publicGet(gateway, '/v1/pets', freshIp(), generateApiKey(foreign));
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ code: 'unauthorized', message: `This is a ${foreign} key (${foreignPrefix}…); this is the ${deployment} API.`, status: 401 });
    expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
    expect(limitsOf(res)).toEqual({ limit: 60, remaining: 59, policy: '"minute";q=60;w=60' });
    expect(resolveKey).not.toHaveBeenCalled();
  });

  it(`when a real ${deployment} key has its prefix edited to ${foreignPrefix}, then it is refused as invalid (the checksum covers the prefix), not as a ${foreign} key`, async () => {
    const { key } = await createKey(gateway);
    const edited = API_KEY_PREFIXES[foreign] + key.slice(prefix.length);
    const res = await publicGet(gateway, '/v1/pets', freshIp(), edited);
    expect(res.status).toBe(401);
    expect(res.body.message).toBe('The API key is invalid or has been revoked.');
    expect(resolveKey).not.toHaveBeenCalled();
  });
});
